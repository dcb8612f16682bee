import { defineConfig } from "@playwright/test";

// Run through `npm test` (or `npm test -- e2e`), which builds the console, serves it on a fresh database with
// demo data and sets VERITY_E2E_BASE_URL. Browsers are never downloaded: Debian's Chromium is used.
export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  timeout: 30_000,
  expect: { timeout: 7_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL: process.env.VERITY_E2E_BASE_URL ?? "http://localhost:3000",
    browserName: "chromium",
    headless: true,
    trace: "off",
    launchOptions: {
      executablePath: process.env.VERITY_CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
