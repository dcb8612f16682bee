import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures/auth.ts";

// The main pages render from the demo data: the runs, a run, the trajectories browser (and a search in it), a
// rollout, the clusters, the agreement report, the reward leaderboard and the audit queue. `npm test -- e2e` runs this on the single-node database like every spec, and
// again against a console whose database is distributed on a Citus cluster when Citus is installed (bin/test.ts,
// docs/scale.md "Verity on Citus"), where each of these pages reads its run from one worker.

/** Opens `path` and checks it rendered: its heading, and no page-level or section error in place of content. */
async function opens(page: Page, path: string, heading: string | RegExp) {
  await page.goto(path);
  await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
  await expect(page.getByText("Something went wrong")).toHaveCount(0);
}

test.describe("the main pages", () => {
  test.use({ role: "admin" });

  test("runs, a run and its charts", async ({ page }) => {
    await opens(page, "/runs", "Runs");
    await expect(page.getByRole("link", { name: "grpo-main", exact: true }).first()).toBeVisible();
    await opens(page, "/runs/grpo-main", "Run grpo-main");
    await expect(page.getByRole("heading", { name: "Steps" })).toBeVisible();
  });

  test("the trajectories browser and a rollout", async ({ page }) => {
    await opens(page, "/trajectories?run=grpo-main", "Trajectories");
    const first = page.locator("tbody tr").first().getByRole("link").first();
    const id = await first.innerText();
    expect(id).toMatch(/\S/);
    await first.click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(id);
    await expect(page.getByTestId("waterfall")).toBeVisible();
    await expect(page.getByText("Something went wrong")).toHaveCount(0);
  });

  test("a search in the browser", async ({ page }) => {
    await opens(page, "/trajectories?run=grpo-main&q=refund", "Trajectories");
    await expect(page.getByTestId("match-count")).toHaveText(/\b[1-9][\d,]* matching/);
    const rows = page.getByTestId("browser-scroll").locator("tbody tr[data-index]");
    await expect(rows.first().locator("[data-snippet] mark").first()).toBeVisible();
  });

  test("the reward leaderboard", async ({ page }) => {
    await opens(page, "/rewards/compare?run=grpo-main", "Reward leaderboard");
    await expect(page.locator('[data-testid="leaderboard-row"][data-ledger="true"]')).toHaveCount(1);
  });

  test("clusters and agreement", async ({ page }) => {
    await opens(page, "/clusters?run=grpo-main", "Clusters");
    await expect(page.getByText(/^Run grpo-main, steps .+ rollouts/).first()).toBeVisible();
    await opens(page, "/agreement", "Agreement");
    await opens(page, "/agreement?run=grpo-hacking", "Agreement");
  });
});

test.describe("the audit queue", () => {
  test.use({ role: "annotator" });

  test("lists the batches with work for the annotator", async ({ page }) => {
    await opens(page, "/queue", "My queue");
  });
});
