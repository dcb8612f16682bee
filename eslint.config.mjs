import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  { ignores: ["node_modules/**", ".next/**", ".data/**", "lib/generated/**", "next-env.d.ts", "test-results/**"] },
  ...nextVitals,
  ...nextTs,
  {
    // Import direction: app -> components -> lib. lib never imports UI; pure folders import nothing with effects.
    files: ["lib/**/*.ts", "lib/**/*.tsx"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@/app/*", "@/components/*"], message: "lib must not import app/ or components/." }] },
      ],
    },
  },
  {
    files: ["lib/verifier/**/*.ts", "lib/stats/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@/app/*", "@/components/*"], message: "lib must not import app/ or components/." },
            {
              group: [
                "@/lib/db/*",
                "@/lib/env*",
                "pg",
                "node:fs",
                "node:http",
                "node:https",
                "node:net",
                "node:child_process",
              ],
              message: "pure modules do no I/O.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["components/**/*.tsx", "components/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@/app/*"], message: "components must not import app/." }] },
      ],
    },
  },
  {
    // A function a reader can hold: past ~80 lines a function is probably two phases, past 150 it must be split
    // (by meaning: the phases of a computation, the sections of a page). Product code only; tests and e2e specs
    // keep their long describe blocks.
    files: [
      "lib/**/*.ts",
      "lib/**/*.tsx",
      "app/**/*.ts",
      "app/**/*.tsx",
      "components/**/*.ts",
      "components/**/*.tsx",
      "bin/**/*.ts",
    ],
    ignores: ["**/*.test.ts", "**/*.test.tsx", "lib/generated/**"],
    rules: { "max-lines-per-function": ["error", { max: 150 }] },
  },
];

export default config;
