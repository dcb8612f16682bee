import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// Import fences. In a flat config the last object that matches a file sets its no-restricted-imports, so each object
// lists every pattern that holds for its files.
const UI = { group: ["@/app/*", "@/components/*"], message: "lib must not import app/ or components/." };
const APP = { group: ["@/app/*"], message: "components must not import app/." };
const BENCH = {
  group: ["@/bench/*", "**/bench/*"],
  message: "bench/ is for benchmarks: product code and its tests never import it.",
};
const TEST_SUPPORT = {
  group: ["@/lib/testing/*", "**/lib/testing/*"],
  message: "test support (lib/testing) is for tests, e2e/, bench/ and bin/test.ts: product code never imports it.",
};
const DEMO = {
  group: ["@/lib/demo/*", "**/lib/demo/*"],
  message: "lib/demo is the top seed layer: only the start-up path (bin/, lib/cli) and test support import it.",
};
const PURE = {
  group: ["@/lib/db/*", "@/lib/env*", "pg", "node:fs", "node:http", "node:https", "node:net", "node:child_process"],
  message: "pure modules do no I/O.",
};
const TESTS = ["**/*.test.ts", "**/*.test.tsx"];
const restrict = (...patterns) => ({ "no-restricted-imports": ["error", { patterns }] });

const config = [
  { ignores: ["node_modules/**", ".next/**", ".data/**", "lib/generated/**", "next-env.d.ts", "test-results/**"] },
  ...nextVitals,
  ...nextTs,
  // Import direction: app -> components -> lib. lib never imports UI; pure folders import nothing with effects.
  // Product code never imports test support, benchmarks or the demo seed layer.
  { files: ["lib/**/*.ts", "lib/**/*.tsx"], rules: restrict(UI, TEST_SUPPORT, BENCH, DEMO) },
  { files: ["lib/demo/**/*.ts", "lib/cli/**/*.ts"], rules: restrict(UI, TEST_SUPPORT, BENCH) },
  { files: ["lib/verifier/**/*.ts", "lib/stats/**/*.ts"], rules: restrict(UI, TEST_SUPPORT, BENCH, DEMO, PURE) },
  { files: ["components/**/*.tsx", "components/**/*.ts"], rules: restrict(APP, TEST_SUPPORT, BENCH, DEMO) },
  { files: ["app/**/*.ts", "app/**/*.tsx"], rules: restrict(TEST_SUPPORT, BENCH, DEMO) },
  // Test support and tests may use test support and the demo; their tests never reach into bench/.
  { files: ["lib/testing/**/*.ts"], rules: restrict(UI, BENCH) },
  { files: TESTS.map((t) => `lib/${t}`), rules: restrict(UI, BENCH) },
  { files: TESTS.map((t) => `components/${t}`), rules: restrict(APP, BENCH) },
  { files: TESTS.map((t) => `app/${t}`), rules: restrict(BENCH) },
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
