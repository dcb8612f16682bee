import { defineConfig } from "vitest/config";
import fs from "node:fs";
import path from "node:path";

/**
 * An error thrown outside any test (an unhandled rejection, an emitter's "error" with no listener) fails the run
 * without failing a test, so the JSON report has no entry for it: `npm test` names it from this file.
 */
function recordUnhandled(error: {
  name?: string;
  message?: string;
  stack?: string;
  VITEST_TEST_PATH?: string;
  VITEST_TEST_NAME?: string;
}) {
  const file = process.env.VERITY_VITEST_UNHANDLED;
  if (!file) return;
  const where = (error.stack ?? "").split("\n").find((l) => /^\s+at .*\/(lib|app|bin|bench)\//.test(l));
  // An error a server sent (a terminated connection) has no frame of ours: the file and test it arrived in say where.
  const during = error.VITEST_TEST_PATH
    ? ` [in ${path.relative(import.meta.dirname, error.VITEST_TEST_PATH)}${error.VITEST_TEST_NAME ? ` › ${error.VITEST_TEST_NAME}` : ""}]`
    : "";
  const line = `${error.name ?? "Error"}: ${(error.message ?? String(error)).split("\n")[0]}${where ? ` (${where.trim()})` : ""}${during}`;
  fs.appendFileSync(file, `${line.slice(0, 400)}\n`);
}

// Unit tests (*.test.ts) are pure; integration tests (*.int.test.ts) need DATABASE_URL, which bin/test.ts
// points at a fresh database; Citus tests (*.citus.test.ts) run against a Citus cluster their global setup starts.
// Each part runs in its own vitest process, through its project.
export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      // Tests run outside Next's react-server layer, where "server-only" is the empty module (tsconfig.json maps it
      // the same way for tsx, so the CLI and the scripts load the server modules too).
      "server-only": path.resolve(import.meta.dirname, "node_modules/next/dist/compiled/server-only/empty.js"),
    },
  },
  test: {
    onUnhandledError: (error) => recordUnhandled(error),
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "bin/**/*.test.ts", "bench/**/*.test.ts", "components/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/*.citus.test.ts", "node_modules/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "int",
          include: ["**/*.int.test.ts"],
          exclude: ["node_modules/**", ".data/**"],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "citus",
          include: ["**/*.citus.test.ts"],
          exclude: ["node_modules/**", ".data/**"],
          globalSetup: ["lib/testing/citus-global-setup.ts"],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
