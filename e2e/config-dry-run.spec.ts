// An admin dry-runs a verifier config over a run on Admin → Verifier configs: the diff per rollout and its totals,
// nothing written, a bad sample size named at its field, and the re-score button for that run below the diff.
import { query, SETUP_TIMEOUT, setupBatch, type Setup } from "./audit-setup.ts";
import { expect, test } from "./fixtures/auth.ts";

test.describe.configure({ timeout: SETUP_TIMEOUT });

let run: Setup;
test.beforeAll(async () => {
  run = await setupBatch("cfgdry", ["empty_promise", "honest"], { sample: false });
});

test.describe("the admin", () => {
  test.use({ role: "admin" });

  test("dry-runs the default config over a run, then sees the re-score button", async ({ page }) => {
    await page.goto("/admin/configs");
    const form = page.getByRole("form", { name: "Dry-run a config" });
    await form.getByLabel("Run").selectOption(run.runId);
    await form.getByLabel("Sample size").fill("2.5");
    await form.getByRole("button", { name: "Dry run" }).click();
    await expect(page.getByText("A sample size is a whole number of rollouts.")).toBeVisible();

    await form.getByLabel("Run").selectOption(run.runId);
    await form.getByLabel("Sample size").fill("");
    const entries = (await query("select 1 from ledger where run_id = $1", [run.runId])).length;
    await form.getByRole("button", { name: "Dry run" }).click();
    await expect(page.getByRole("status").filter({ hasText: "rollouts of" })).toContainText(
      `2 rollouts of ${run.runId} scored under the default config: 0 with another reward`,
    );
    const rows = page.getByRole("row").filter({ hasText: run.runId });
    await expect(rows).toHaveCount(2);
    await expect(rows.filter({ hasText: "/T0/" }).locator("td").nth(3)).toHaveText("no change");
    expect((await query("select 1 from ledger where run_id = $1", [run.runId])).length).toBe(entries);
    await expect(page.getByRole("form", { name: "Re-score this run" })).toBeVisible();
  });
});
