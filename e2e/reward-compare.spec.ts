// The reward leaderboard journey: a lead opens the leaderboard of a run's audited items, sees the ledger's row marked
// and the items a function is missing counted, sorts it, picks two rows, reads the head to head, filters the
// disagreements by the side the human took, and follows one to its rollout. The run is made for this spec through the
// product's functions (lib/testing/leaderboard-seed.ts: ingest, a tickets batch reviewed blind, a pairwise batch
// judged, four reward-function versions run), so it does not depend on the demo data.
import { expect, settled, test } from "./fixtures/auth.ts";
import { seedByScript, SETUP_TIMEOUT } from "./audit-setup.ts";
import type { LeaderboardSeed } from "@/lib/testing/leaderboard-seed.ts";

test.describe.configure({ timeout: SETUP_TIMEOUT });

let seed: LeaderboardSeed;

test.beforeAll(async () => {
  seed = seedByScript<LeaderboardSeed>("lib/testing/leaderboard-seed.ts", ["12"]);
});

test.describe("a lead", () => {
  test.use({ role: "lead" });

  test("compares two reward functions, opens a disagreement and reaches the rollout", async ({ page }) => {
    await page.goto(`/rewards/compare?run=${encodeURIComponent(seed.runId)}`);
    const rows = page.getByTestId("leaderboard-row");
    await expect(rows).toHaveCount(5);
    const ledger = page.locator('[data-testid="leaderboard-row"][data-ledger="true"]');
    await expect(ledger).toHaveCount(1);
    await expect(ledger).toContainText("ledger");
    // the function run on one ticket only: the rest of the items counted as not run, never dropped
    await expect(page.locator(`[data-row="${seed.versions.absent}"]`).getByTestId("missing")).toContainText("not run");
    // under 30 items every figure says so
    await expect(ledger.getByTestId("agreement")).toHaveText("too few to say");

    // sort by MAE, then the other way: the address carries it
    await page.getByRole("link", { name: "MAE", exact: true }).click();
    await expect(page).toHaveURL(/sort=mae/);
    await settled(page);
    await expect(rows).toHaveCount(5);

    // pick the ledger as A and the rule as B
    await ledger.getByTestId("pick-a").click();
    await expect(page).toHaveURL(/a=ledger/);
    await expect(page.getByTestId("pick-hint")).toBeVisible();
    await page.locator(`[data-row="${seed.versions.rule}"]`).getByTestId("pick-b").click();
    await expect(page).toHaveURL(new RegExp(`b=${seed.versions.rule}`));
    await expect(page.getByTestId("h2h-verdict")).toContainText(/agrees more often than|cannot tell them apart/);
    const disagreements = page.getByTestId("disagreement");
    await expect(disagreements.first()).toBeVisible();
    const all = await disagreements.count();

    // only those where the human took the ledger's side
    await page
      .getByTestId("side-filter")
      .getByRole("link", { name: /sided with A/ })
      .click();
    await expect(page).toHaveURL(/side=a/);
    await expect(page.getByTestId("side-filter").locator("span.font-semibold")).toContainText("sided with A");
    const sidedA = page.getByTestId("disagreement");
    const n = await sidedA.count();
    expect(n).toBeLessThanOrEqual(all);
    for (let i = 0; i < n; i++) await expect(sidedA.nth(i)).toContainText("A (ledger)");

    // open the first disagreement's rollout (back to every disagreement when the human sided with none for A)
    if (n === 0) await page.getByTestId("side-filter").getByRole("link", { name: /^all / }).click();
    const link = page.getByTestId("disagreement").first().locator('a[href^="/trajectories/"]');
    const trajectory = (await link.textContent())!;
    await expect(page.getByTestId("disagreement").first().locator('a[href^="/groups?"]')).toHaveCount(1);
    await link.click();
    await expect(page).toHaveURL(new RegExp(`/trajectories/${encodeURIComponent(trajectory)}`));
    await expect(page.getByText(trajectory).first()).toBeVisible();
  });

  test("reads on the run page where the ledger's reward stands, and follows it to the leaderboard", async ({
    page,
  }) => {
    await page.goto(`/runs/${encodeURIComponent(seed.runId)}`);
    const standing = page.getByTestId("ledger-standing");
    await expect(standing).toContainText(/audited items the ledger's reward ranks \d of \d by agreement/);
    await page.getByRole("link", { name: "Open the leaderboard →" }).click();
    await expect(page).toHaveURL(new RegExp(`/rewards/compare\\?run=${seed.runId}$`));
    await expect(page.getByTestId("leaderboard-row")).toHaveCount(5);
  });

  test("names a bad parameter of the address", async ({ page }) => {
    await page.goto(`/rewards/compare?run=${encodeURIComponent(seed.runId)}&sort=nope`);
    await expect(page.getByTestId("bad-params")).toContainText("sort: must be one of agreement");
  });
});

test.describe("an annotator", () => {
  test.use({ role: "annotator" });

  test("may not open the leaderboard", async ({ page }) => {
    const r = await page.goto(`/rewards/compare?run=${encodeURIComponent(seed.runId)}`);
    expect(r?.status()).toBe(403);
  });
});
