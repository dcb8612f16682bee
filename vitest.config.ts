import { defineConfig } from "vitest/config";
import path from "node:path";

// Unit tests (*.test.ts) are pure; integration tests (*.int.test.ts) need DATABASE_URL, which bin/test.ts
// points at a fresh database. Both run in one vitest process through two projects.
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "bin/**/*.test.ts", "bench/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "node_modules/**"],
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
    ],
  },
});
