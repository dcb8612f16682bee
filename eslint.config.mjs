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
];

export default config;
