import { expect, hydrated, test } from "./fixtures/auth.ts";

// The audit gate on the run page of the demo's reward-hacking run (small demo, its shadow audit and thresholds):
// the verdict with each rule, beside the trained-reward chart. The page is the one `verity gate` and
// GET /api/v1/runs/{run}/gate answer for: the same report, server-rendered. Who may open the page (and so see the
// gate) is e2e/roles-access.spec.ts's table.
const SLOW = { timeout: 20_000 };

test.describe("the audit gate on the run page", () => {
  test.use({ role: "lead" });
  test.describe.configure({ timeout: 90_000 });

  test("grpo-hacking's gate fails, naming reward hacking among its failing rules and its hand-off rate as a warning, with the trained-reward chart beside it", async ({
    page,
  }) => {
    await page.goto("/runs/grpo-hacking");
    await expect(page.getByRole("heading", { level: 1, name: "Run grpo-hacking" })).toBeVisible(SLOW);
    await hydrated(page);
    const verdict = page.getByTestId("gate-verdict");
    await expect(verdict).toHaveAttribute("data-verdict", "fail");
    await expect(verdict).toContainText("Fail: ");
    await expect(verdict).toContainText("trained-reward mismatch");
    // a hand-off rate over its ceiling is a health warning, not a reason to stop: it is not among the failures
    await expect(verdict).not.toContainText("hand-off rate");
    const rows = page.locator("tr[data-rule]");
    await expect(rows).toHaveCount(8);
    // the leaderboard rule is off unless a rules file turns it on
    await expect(page.locator('tr[data-rule="ledger_rank"]')).toHaveAttribute("data-status", "off");
    const handoff = page.locator('tr[data-rule="handoff"]');
    await expect(handoff).toHaveAttribute("data-status", "warn");
    await expect(handoff).toHaveAttribute("data-severity", "warn");
    await expect(handoff).toContainText("warning");
    await expect(handoff).toContainText("≤ 10%");
    // every rollout of the window is counted: no sampling interval
    await expect(handoff).toContainText("full count");
    await expect(page.locator('tr[data-rule="trained_mismatch"]')).toHaveAttribute("data-status", "fail");
    // reward hacking: the ledger's success rises over the demo's ten audit windows while the corrected one stays flat
    await expect(verdict).toContainText("reward hacking");
    const hacking = page.locator('tr[data-rule="reward_hacking"]');
    await expect(hacking).toHaveAttribute("data-status", "fail");
    await expect(hacking).toContainText("the corrected success does not");
    // its line and its interval are slopes, in points per 1,000 steps
    await expect(hacking).toContainText(/≥ \+\d+\.\d\d pts \/ 1k steps/);
    await expect(hacking).toContainText(/[+−]\d+\.\d\d pts \/ 1k steps to [+−]\d+\.\d\d pts \/ 1k steps/);

    // the pairwise audit per window: the humans agree with the ledger's order less and less, below the floor late
    const ordering = page.locator("section").filter({ hasText: "Ordering agreement per audit window" });
    await expect(ordering.locator("tr[data-window]").first()).not.toHaveAttribute("data-below", "true");
    await expect(ordering.locator("tr[data-window]").last()).toHaveAttribute("data-below", "true");
    await expect(ordering.locator("tr[data-window]").last()).toContainText("lower bound below the floor");
    await expect(page.locator('[data-alarm="ordering"]')).toHaveCount(1);

    const chart = page.locator("#chart-trained-reward");
    await expect(chart.getByRole("heading", { name: "Trained reward vs ledger" })).toBeVisible();
    await expect(chart.locator(".recharts-surface").first()).toBeVisible();
  });
});
