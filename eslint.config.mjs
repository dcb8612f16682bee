import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

/**
 * Files that take a database handle outside a data, mutations or loaders file, each with its reason. The list only
 * shrinks: a new read or write goes into its folder's data or mutations file.
 */
const DB_HANDLE_ALLOWED = [
  // Composition roots: each opens or picks the database its process or request uses and hands it to the data and
  // mutations functions it calls (they query nothing themselves).
  "lib/api/route.ts", // the route wrapper: route handlers get their handles from it (app/ imports none)
  "lib/cli/**", // a CLI command opens its own client on the URL it was given
  "**/actions.ts", // server actions hand the bulk pool to the writers they call
  "**/*-actions.ts",
  "lib/clusters/bulk-fix-action.ts",
  "lib/monitors/on-start.ts", // the server's start-up evaluation, on a client of its own
  "lib/ingest/database.ts", // the bulk CLI commands' database: started, migrated, its pool closed afterwards
  // Demo generation and test support: not product code paths (lib/testing is fenced off from product code).
  "lib/demo/**",
  "lib/audit/demo.ts",
  "lib/server/first-run.ts",
  "lib/testing/**",
  // Reads and writes that live outside a data or mutations file today, each to move there (this list shrinks):
  "lib/agreement/cached.ts", // the agreement report's cache over its reads, on the replica
  "lib/agreement/case-slots.ts",
  "lib/agreement/facets.ts",
  "lib/audit/corrected-curve.ts",
  "lib/audit/leases.ts",
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
  "lib/monitors/after-review.ts",
  "lib/monitors/evaluate.ts",
  "lib/review/rollout-view.ts",
  "lib/runs/archive.ts",
];

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
