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
/**
 * Files that take a database handle outside a data, mutations or loaders file, each with its reason. The list only
 * shrinks: a new read or write goes into its folder's data or mutations file.
 */
const DB_HANDLE_ALLOWED = [
  // Composition roots: each opens or picks the database its process or request uses and hands it to the data and
  // mutations functions it calls (they query nothing themselves).
  "lib/api/route.ts", // the route wrapper: route handlers get their handles from it (app/ imports none)
  "lib/cli/**", // a CLI command opens its own client on the URL it was given
  "lib/actions/**", // server actions hand the bulk pool to the writers they call
  "lib/monitors/on-start.ts", // the server's start-up evaluation, on a client of its own
  "lib/ingest/database.ts", // the bulk CLI commands' database: started, migrated, its pool closed afterwards
  // Demo generation and test support: not product code paths (lib/testing is fenced off from product code).
  "lib/demo/**",
  "lib/testing/**",
  // Reads and writes that live outside a data or mutations file today, each to move there (this list shrinks):
  "lib/agreement/cached.ts", // the agreement report's cache over its reads, on the replica
  "lib/agreement/case-slots.ts",
  "lib/agreement/facets.ts",
  "lib/monitors/corrected-curve.ts",
  "lib/review/leases.ts",
  "lib/auth/activity-log.ts", // the activity log's writer (and the Db type)
  "lib/cases/apply-fix.ts",
  "lib/clusters/export.ts", // streamed exports read on the replica or the bulk pool
  "lib/defects/agreement-now.ts",
  "lib/gate/refresh.ts",
  "lib/ingest/ingest.ts", // checks a connection out of the bulk pool per batch
  "lib/ledger/browse.ts",
  "lib/ledger/detail.ts",
  "lib/ledger/export.ts",
  "lib/ledger/facets.ts",
  "lib/server/after-write.ts",
  "lib/monitors/evaluate.ts",
  "lib/review/rollout-view.ts",
  "lib/runs/archive.ts",
];

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
  {
    // A database handle is taken only where the layer map says reads and writes live: a folder's data, mutations and
    // loaders files, the ledger's store and lib/db itself. Everything else is handed a client or pool by its caller
    // (type imports of pg and of the Prisma client are free: a signature may name what it is handed).
    files: ["lib/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    ignores: [
      "**/*.test.ts",
      "**/data.ts",
      "**/*-data.ts",
      "**/mutations.ts",
      "**/*-mutations.ts",
      "**/loaders.ts",
      "**/*-loaders.ts",
      "lib/ledger/store/**",
      "lib/db/**",
      ...DB_HANDLE_ALLOWED,
    ],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["pg", "@/lib/db/client*", "@/lib/db/pool*", "@/lib/db/raw-client*", "@/lib/db/read-client*"],
              allowTypeImports: true,
              message:
                "only data, mutations and loaders files (and lib/ledger/store, lib/db) take a database handle: read or write there, or take the client as a parameter.",
            },
          ],
        },
      ],
    },
  },
];

export default config;
