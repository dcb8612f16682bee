// The annotator's journey with the keyboard only: start a batch from the queue, score three items, see each reveal,
// move on; then the lead settles the disagreement it produced and sees it in the tally and the progress.
import type { Page } from "@playwright/test";
import { query, SETUP_TIMEOUT, setupBatch, type Setup } from "./audit-setup.ts";
import { expect, test } from "./fixtures/auth.ts";
import { answerClaims, openBatchFromQueue } from "./fixtures/review-form.ts";

// Multi-page journeys with CLI setup: generous on a loaded machine (hooks and tests alike).
test.describe.configure({ timeout: SETUP_TIMEOUT });

let setup: Setup;
test.beforeAll(async () => {
  test.setTimeout(SETUP_TIMEOUT);
  // Two honest refunds (ledger reward 1) and one empty promise (the ledger caps it at 0.35).
  setup = await setupBatch("review", ["honest", "empty_promise", "honest"]);
});

// The console as a lead or annotator usually sees it: the checks of what stays in view are made at this size.
const LAPTOP = { width: 1440, height: 900 };

const scrollTop = (page: Page) => page.getByTestId("rollout-pane").evaluate((el) => el.scrollTop);

/** The pane's collapsible sections, by the summary that opens each. */
function sections(page: Page) {
  const pane = page.getByTestId("rollout-pane");
  const details = (summary: string) => pane.locator(`details:has(> summary:text-is("${summary}"))`);
  return { pane, snapshot: details("Environment snapshot"), spec: details("Verifier spec"), inputs: details("input") };
}

/** Scores the item on screen: all five sub-scores 1, no flag, the refund claimed (the rest not), a note. Keys only. */
async function scoreWithKeys(page: Page, note: string) {
  await expect(page.getByTestId("annotation-form")).toHaveAttribute("data-ready", "true");
  for (let i = 0; i < 5; i++) await page.keyboard.press("4");
  await expect(page.getByTestId("human-reward-value")).toHaveText("1.000");
  // claims: the refund claimed, every other claim answered "no"
  await answerClaims(page, ["write-finance.issue_refund"]);
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
    await openBatchFromQueue(page, setup.batchName);

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

test.describe("the annotator reading", () => {
  test.use({ role: "annotator", viewport: LAPTOP });

  let reading: Setup;
  test.beforeAll(async () => {
    test.setTimeout(SETUP_TIMEOUT);
    // One more honest refund, read with the keyboard before it is scored.
    reading = await setupBatch("reading", ["honest"]);
  });

  test("reads the rollout with the keyboard: scrolls the pane, opens its sections, lists every key", async ({
    page,
  }) => {
    await page.goto("/queue");
    await expect(page.getByTestId("queue-batches")).toHaveAttribute("data-ready", "true");
    await page
      .getByTestId("queue-batches")
      .locator("li", { hasText: reading.batchName })
      .getByRole("button", { name: "Start" })
      .click();
    await page.waitForURL(/\/review\?item=\d+/);
    await expect(page.getByTestId("annotation-form")).toHaveAttribute("data-ready", "true");

    // The key legend is in view without scrolling.
    const legend = page.getByRole("region", { name: "Keys" });
    const box = (await legend.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(LAPTOP.height);

    const { snapshot, spec, inputs } = sections(page);
    await expect(snapshot).not.toHaveAttribute("open");
    await page.keyboard.press("e");
    await expect(snapshot).toHaveAttribute("open", "");
    await page.keyboard.press("v");
    await expect(spec).toHaveAttribute("open", "");
    await expect(inputs).toHaveCount(3);
    await page.keyboard.press("i");
    for (let n = 0; n < 3; n++) await expect(inputs.nth(n)).toHaveAttribute("open", "");

    expect(await scrollTop(page)).toBe(0);
    await page.keyboard.press("Shift+J");
    await expect.poll(() => scrollTop(page)).toBeGreaterThan(0);
    const down = await scrollTop(page);
    await page.keyboard.press("]");
    await expect.poll(() => scrollTop(page)).toBeGreaterThan(down);
    await page.keyboard.press("Shift+K");
    await page.keyboard.press("Shift+K");
    await page.keyboard.press("Shift+K");
    await expect.poll(() => scrollTop(page)).toBeLessThan(down);
    await page.keyboard.press("e");
    await expect(snapshot).not.toHaveAttribute("open");
    await page.keyboard.press("i");
    await expect(inputs.first()).not.toHaveAttribute("open");

    // ? lists every key of the page, reading and scoring alike; Escape closes it.
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keys" });
    await expect(help).toBeVisible();
    for (const what of [
      "scroll the rollout down",
      "scroll the rollout up",
      "next step",
      "previous step",
      "open or close every step's input",
      "open or close the environment snapshot",
      "open or close the verifier spec",
      "move the cursor",
      "submit",
      "skip (give the item back)",
      "show or hide this list",
    ])
      await expect(help).toContainText(what);
    await page.keyboard.press("Escape");
    await expect(help).toBeHidden();
    await page.keyboard.press("?");
    await expect(help).toBeVisible();
    await page.keyboard.press("?");
    await expect(help).toBeHidden();

    // Typing in a field types: no key of the page fires.
    await page.keyboard.press("n");
    await page.keyboard.type("e v ? J");
    await expect(page.getByRole("textbox", { name: "Note" })).toHaveValue("e v ? J");
    await expect(snapshot).not.toHaveAttribute("open");
    await expect(spec).toHaveAttribute("open", "");
    await expect(help).toBeHidden();
    await page.getByRole("textbox", { name: "Note" }).fill("");
    await page.keyboard.press("Escape");

    // Scored and submitted, so the batch leaves the queue (d: back to the first sub-score).
    await page.keyboard.press("d");
    await scoreWithKeys(page, "read with the keyboard");
  });
});

test.describe("the lead", () => {
  test.use({ role: "lead" });

  test("settles a dispute with the rollout beside both sides' scores, by keyboard, and follows it to the trajectory", async ({
    page,
  }) => {
    await page.setViewportSize(LAPTOP);
    const disputed = setup.items.find((i) => i.kind === "empty_promise")!;
    await page.goto(`/audit/adjudication?item=${disputed.itemId}`);
    const dispute = page.getByTestId("dispute");
    await expect(dispute).toBeVisible();
    // the rollout: reply, steps, sandbox writes (none: the refund was only promised)
    const pane = page.getByTestId("rollout-pane");
    await expect(pane.getByTestId("final-reply")).toHaveText(
      "I have refunded 59.99 EUR; it reaches your card in 3-5 business days.",
    );
    await expect(pane.getByTestId("timeline").locator("> li")).toHaveCount(3);
    await expect(pane.getByTestId("timeline")).toContainText("ticket.close");
    await expect(pane).toContainText("The sandbox recorded no write.");
    // both sides' scores and claims
    const comparison = page.getByTestId("comparison");
    await expect(page.getByTestId("ledger-reward")).toHaveText(/^0\.\d{3}$/);
    await expect(comparison).toContainText("empty_promise");
    await expect(comparison).toContainText("claims write finance.issue_refund");
    await expect(dispute.getByRole("columnheader", { name: "annotator@verity.local" })).toBeVisible();
    await expect(comparison.locator("tr").first().locator("td").nth(2)).toHaveText(/^1\.000/);

    // the same reading keys as the annotation page
    await expect(page.getByRole("form", { name: "Verdict" })).toHaveAttribute("data-ready", "true");
    await expect(page.getByTestId("rollout-pane")).toHaveAttribute("data-ready", "true");
    const { snapshot, spec } = sections(page);
    await page.keyboard.press("e");
    await expect(snapshot).toHaveAttribute("open", "");
    await page.keyboard.press("v");
    await expect(spec).toHaveAttribute("open", "");
    expect(await scrollTop(page)).toBe(0);
    await page.keyboard.press("Shift+J");
    await expect.poll(() => scrollTop(page)).toBeGreaterThan(0);
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keys" });
    await expect(help).toContainText("scroll the rollout down");
    await expect(help).toContainText("verifier rule wrong");
    await expect(help).toContainText("record the verdict");
    await page.keyboard.press("Escape");
    await expect(help).toBeHidden();
    await page.getByLabel("Note").focus();
    await page.keyboard.type("e");
    await expect(page.getByLabel("Note")).toHaveValue("e");
    await expect(snapshot).toHaveAttribute("open", "");
    await page.getByLabel("Note").fill("");

    const link = dispute.getByRole("link", { name: disputed.trajectoryId });
    await expect(link).toHaveAttribute("href", `/trajectories/${encodeURIComponent(disputed.trajectoryId)}`);
    await link.click();
    await expect(page.getByTestId("waterfall")).toBeVisible();
  });

  test("adjudicates the disagreement and sees it tallied by cause and guardrail, and the batch's progress", async ({
    page,
  }) => {
    const disputed = setup.items.find((i) => i.kind === "empty_promise")!;
    await page.goto("/audit/adjudication");
    // The queue lists the oldest disputes first, 50 a page: this batch's is behind the demo audit's, so page on to it.
    const itemLink = page.getByRole("link", { name: `#${disputed.itemId}`, exact: true }).first();
    for (let i = 0; i < 20 && (await itemLink.count()) === 0; i++) {
      const next = await page.getByRole("link", { name: "Next page →" }).getAttribute("href");
      expect(next, `item #${disputed.itemId} is in the queue`).toBeTruthy();
      await page.goto(next!);
    }
    await itemLink.click();
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
