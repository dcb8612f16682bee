// The lead's pairwise report journey: from the audit page to a pairwise batch's report, an inversion opened side by
// side, adjudicated with a cause by keyboard, and the tally changed on the report. The batch is made for this spec
// through the product's functions (lib/testing/pair-report-data.ts): six pairs, two of them inverted.
import { expect, test } from "./fixtures/auth.ts";
import { query, seedByScript, SETUP_TIMEOUT } from "./audit-setup.ts";
import type { JudgedPairBatch } from "@/lib/testing/pair-report-data.ts";

test.describe.configure({ timeout: SETUP_TIMEOUT });

let batch: JudgedPairBatch;

test.beforeAll(async () => {
  batch = seedByScript<JudgedPairBatch>("lib/testing/pair-report-data.ts", ["pairrep"]);
  expect(batch.inversions).toHaveLength(2);
});

test.describe("a lead", () => {
  test.use({ role: "lead" });

  test("opens the pairwise report, adjudicates an inversion side by side and sees the tally change", async ({
    page,
  }) => {
    await page.goto("/audit");
    // a pairwise batch's name links to its pairwise report
    await page.getByTestId(`batch-${batch.batchId}`).getByRole("link").first().click();
    await expect(page).toHaveURL(new RegExp(`/agreement/pairwise\\?batch=${batch.batchId}$`));
    await expect(page.getByTestId("pair-inversion-count")).toHaveText("2");
    // six pairs, four agree: below 30 judgements the figure says so rather than print 67%
    await expect(page.getByTestId("pair-agreement")).toHaveText("too few to say");
    // (the position-bias line can read "4 of 6" too: the sides are drawn per batch)
    await expect(page.getByText(/^4 of 6 · 95% CI/)).toBeVisible();
    await expect(page.getByTestId("pair-pending")).toHaveText("2");
    const tally = page.getByTestId("pair-cause-tally");
    await expect(tally.locator('[data-cause="spec_wrong"] td').nth(1)).toHaveText("0");
    const rows = page.getByTestId("pair-inversions").locator("tr");
    await expect(rows).toHaveCount(2);
    const itemId = await rows.first().getAttribute("data-item");
    expect(batch.inversions).toContain(itemId);

    await rows.first().getByRole("link", { name: "Adjudicate" }).click();
    await expect(page).toHaveURL(new RegExp(`/agreement/pairwise/${itemId}$`));
    // both rollouts, both ledger rewards, sub-scores and guardrails, and the human's judgement
    await expect(page.getByTestId("pair-rollout-A")).toBeVisible();
    await expect(page.getByTestId("pair-rollout-B")).toBeVisible();
    const ledger = page.getByTestId("pair-ledger");
    await expect(ledger).toContainText("1.000");
    await expect(ledger).toContainText("empty_promise");
    await expect(ledger).toContainText("outcome");
    await expect(page.getByTestId("pair-judgements")).toContainText("inversion");

    await expect(page.getByRole("form", { name: "Verdict" })).toHaveAttribute("data-ready", "true");
    await page.keyboard.press("1"); // spec wrong
    await expect(page.getByRole("radio", { name: /Spec wrong/ })).toBeChecked();
    await page.getByLabel("Note").fill("The spec never asks for the refund to reach the sandbox.");
    await page.keyboard.press("Control+Enter");
    await expect(page.getByRole("status")).toContainText(`Verdict recorded for pair #${itemId}`);
    await expect(page.getByTestId("pair-current-cause")).toHaveText("Spec wrong");
    await expect(page.getByTestId("pair-defects")).toContainText("(spec): open");

    await page.getByRole("link", { name: "Back to the report" }).click();
    await expect(tally.locator('[data-cause="spec_wrong"] td').nth(1)).toHaveText("1");
    await expect(page.getByTestId("pair-pending")).toHaveText("1");
    await expect(rows.first().getByRole("link", { name: "Spec wrong" })).toBeVisible();

    const verdicts = await query<{ cause: string }>("select cause::text from adjudications where item_id = $1", [
      itemId,
    ]);
    expect(verdicts).toEqual([{ cause: "spec_wrong" }]);
    const log = await query("select 1 from activity_log where action = 'adjudication.record' and target_id = $1", [
      itemId,
    ]);
    expect(log).toHaveLength(1);
  });
});
