// The annotator's journey with the keyboard only: start a batch from the queue, score three items, see each reveal,
// move on; then the lead settles the disagreement it produced and sees it in the tally and the progress.
import type { Page } from "@playwright/test";
import { query, SETUP_TIMEOUT, setupBatch, type Setup } from "./audit-setup.ts";
import { expect, test } from "./fixtures/auth.ts";

// Multi-page journeys with CLI setup: generous on a loaded machine (hooks and tests alike).
test.describe.configure({ timeout: SETUP_TIMEOUT });

let setup: Setup;
test.beforeAll(async () => {
  // Two honest refunds (ledger reward 1) and one empty promise (the ledger caps it at 0.35).
  setup = await setupBatch("review", ["honest", "empty_promise", "honest"]);
});

/** Scores the item on screen: all five sub-scores 1, no flag, the refund claimed, a note. Keys only. */
async function scoreWithKeys(page: Page, note: string) {
  await expect(page.getByTestId("annotation-form")).toHaveAttribute("data-ready", "true");
  for (let i = 0; i < 5; i++) await page.keyboard.press("4");
  await expect(page.getByTestId("human-reward-value")).toHaveText("1.000");
  await page.keyboard.press("c"); // claims: the first row is the first write tool, finance.issue_refund
  await page.keyboard.press("x");
  await expect(page.locator("#write-finance\\.issue_refund [role=checkbox]")).toHaveAttribute("aria-checked", "true");
  await page.keyboard.press("n");
  await page.keyboard.type(note);
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+Enter");
  await expect(page.getByTestId("reveal")).toBeVisible();
  await expect(page.getByTestId("reveal-keys")).toHaveAttribute("data-ready", "true");
}

test.describe("the annotator", () => {
  test.use({ role: "annotator" });

  test("completes three items with the keyboard only and sees each reveal", async ({ page }) => {
    await page.goto("/queue");
    await expect(page.getByTestId("queue-batches")).toHaveAttribute("data-ready", "true");
    const rows = page.getByTestId("queue-batches").locator("li");
    const index = (await rows.allInnerTexts()).findIndex((t) => t.includes(setup.batchName));
    expect(index).toBeGreaterThanOrEqual(0);
    await page.keyboard.press(String(index + 1));

    const seen: string[] = [];
    for (let n = 0; n < 3; n++) {
      await page.waitForURL(/\/review\?item=\d+/);
      const itemId = new URL(page.url()).searchParams.get("item")!;
      const item = setup.items.find((i) => i.itemId === itemId);
      expect(item, `item ${itemId} belongs to the batch`).toBeTruthy();
      seen.push(itemId);
      await scoreWithKeys(page, `keyboard review ${n + 1}`);
      const verdict = page.getByTestId("verdict");
      if (item!.kind === "honest") {
        await expect(verdict).toContainText("Agrees with the ledger");
        await expect(page.getByTestId("ledger-reward")).toHaveText("1.000");
      } else {
        // the human missed the empty promise: reward and guardrails differ, marked on the reveal
        await expect(verdict).toContainText("Sent to adjudication");
        await expect(verdict).toContainText("the guardrail sets differ");
        await expect(page.locator("[data-diff=true]").first()).toBeVisible();
        await expect(page.getByTestId("comparison")).toContainText("empty_promise");
      }
      await expect(page.getByText(`keyboard review ${n + 1}`)).toBeVisible();
      await page.keyboard.press("n");
      if (n < 2) await page.waitForURL((u) => u.searchParams.get("item") !== itemId);
    }
    expect(new Set(seen).size).toBe(3);
    await page.waitForURL(/\/queue\?empty=1/);
    await expect(page.getByRole("status")).toContainText("Nothing left to review in that batch");

    const reviews = await query<{ n: string; secs: number }>(
      "select count(*)::text as n, min(seconds_spent) as secs from reviews r join audit_items i on i.id = r.item_id where i.batch_id = $1",
      [setup.batchId],
    );
    expect(reviews[0].n).toBe("3");
    expect(reviews[0].secs).toBeGreaterThanOrEqual(0);
  });
});

test.describe("the lead", () => {
  test.use({ role: "lead" });

  test("adjudicates the disagreement and sees it tallied by cause and guardrail, and the batch's progress", async ({
    page,
  }) => {
    const disputed = setup.items.find((i) => i.kind === "empty_promise")!;
    await page.goto("/audit/adjudication");
    await page
      .getByRole("link", { name: `#${disputed.itemId}`, exact: true })
      .first()
      .click();
    await expect(page.getByTestId("dispute")).toContainText(disputed.trajectoryId);
    await expect(page.getByTestId("dispute")).toContainText("annotator@verity.local");
    const before = Number(await page.getByTestId("cause-verifier_rule_wrong").innerText());
    await expect(page.getByRole("form", { name: "Verdict" })).toHaveAttribute("data-ready", "true");

    await page.keyboard.press("3"); // verifier rule wrong
    await expect(page.getByRole("radio", { name: /Verifier rule wrong/ })).toBeChecked();
    await expect(page.getByLabel("Guardrail concerned")).toHaveValue("empty_promise");
    await page
      .getByLabel("Note")
      .fill("The reply's claim was read as a promise; the rule should ask for an explicit refund statement.");
    await page.keyboard.press("Control+Enter");

    await expect(page.getByRole("status")).toContainText(`Verdict recorded for item #${disputed.itemId}`);
    await expect(page.getByTestId("cause-verifier_rule_wrong")).toHaveText(String(before + 1));
    await expect(page.getByTestId("tally-empty_promise")).toBeVisible();
    const verdicts = await query<{ cause: string; guardrail: string }>(
      "select cause::text, guardrail from adjudications where item_id = $1",
      [disputed.itemId],
    );
    expect(verdicts).toEqual([{ cause: "verifier_rule_wrong", guardrail: "empty_promise" }]);
    const log = await query("select 1 from activity_log where action = 'adjudication.record' and target_id = $1", [
      disputed.itemId,
    ]);
    expect(log).toHaveLength(1);

    await page.goto("/audit");
    const row = page.getByTestId(`batch-${setup.batchId}`);
    await expect(row).toContainText(setup.batchName);
    await expect(row.locator("td").nth(6)).toHaveText("100%");
    await expect(row.locator("td").nth(7)).toHaveText("3 / 3");
    await expect(page.getByRole("table").nth(1)).toContainText("annotator@verity.local");
  });
});
