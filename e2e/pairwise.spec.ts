// The annotator's pairwise journey, by keyboard only: from the queue to a pair, `?` for the keys, a / b / t to judge,
// enter to submit, the reveal, n for the next pair — three pairs. And blind by construction: before each submission,
// no response to the annotator — the page's HTML, its RSC payload, every document and fetch answer of the flow —
// carries either rollout's reward, sub-scores, guardrail, advantage or which of the two the ledger prefers. The needles
// are the real values, read from the database: distinctive rewards no page shows by accident, their advantages in the
// group, the sub-scores, the deciding guardrail, the reason messages, the claims source.
import type { Page, Response } from "@playwright/test";
import { query, SETUP_TIMEOUT, setupPairBatch, type PairSetup } from "./audit-setup.ts";
import { expect, test } from "./fixtures/auth.ts";

test.use({ role: "annotator" });
test.describe.configure({ timeout: SETUP_TIMEOUT });

type LedgerRow = {
  trajectory_id: string;
  ticket_id: string;
  reward: number;
  outcome: number;
  policy: number;
  deciding_guardrail: string;
  claims_source: string;
  reasons: { message: string }[];
};

let setup: PairSetup;
let ledger: Map<string, LedgerRow>;

test.beforeAll(async () => {
  test.setTimeout(SETUP_TIMEOUT);
  setup = await setupPairBatch("pairkeys", 3);
  const rows = await query<LedgerRow>(
    `select trajectory_id, ticket_id, reward, outcome, policy, deciding_guardrail, claims_source, reasons
       from ledger where run_id = $1 and is_current`,
    [setup.runId],
  );
  expect(rows).toHaveLength(6);
  ledger = new Map(rows.map((r) => [r.trajectory_id, r]));
});

/** Every document, fetch and XHR answer of the page (static assets are the same for everyone). */
function capture(page: Page) {
  const bodies: { url: string; body: string }[] = [];
  const pending: Promise<void>[] = [];
  page.on("response", (res: Response) => {
    if (!["document", "fetch", "xhr"].includes(res.request().resourceType())) return;
    pending.push(
      res
        .text()
        .then((body) => void bodies.push({ url: res.url(), body }))
        .catch(() => undefined),
    );
  });
  return { bodies, settle: () => Promise.all(pending) };
}

/** What must not reach the annotator before they judge the pair of `a` and `b` (the only two rollouts of a group). */
function needles(a: LedgerRow, b: LedgerRow): string[] {
  const mean = (a.reward + b.reward) / 2;
  const out = ["ledgerPreferred", "normalizedAdvantage", "data-verdict"];
  for (const r of [a, b]) {
    const advantage = r.reward - mean;
    out.push(
      String(r.reward),
      r.reward.toFixed(3),
      String(advantage),
      Math.abs(advantage).toFixed(3),
      String(r.outcome),
      r.deciding_guardrail,
      r.claims_source,
      ...r.reasons.map((x) => x.message),
    );
  }
  return out;
}

test("an annotator judges three pairs by keyboard, blind before each submission, and sees each reveal", async ({
  page,
}) => {
  const seen = capture(page);
  await page.goto("/queue");
  await expect(page.getByTestId("queue-batches")).toHaveAttribute("data-ready", "true");
  const names = await page.getByTestId("queue-batches").locator("li").allInnerTexts();
  const index = names.findIndex((t) => t.includes(setup.batchName));
  expect(index, "the batch is in the annotator's queue").toBeGreaterThanOrEqual(0);
  expect(index).toBeLessThan(9);
  await page.keyboard.press(String(index + 1));

  const choices = ["a", "b", "t"] as const;
  const judged: string[] = [];
  for (const [n, key] of choices.entries()) {
    await page.waitForURL(
      (u) =>
        u.pathname === "/pairwise" && !!u.searchParams.get("item") && !judged.includes(u.searchParams.get("item")!),
    );
    const itemId = new URL(page.url()).searchParams.get("item")!;
    expect(judged, "n leased a pair not judged yet").not.toContain(itemId);
    const [item] = await query<{ trajectory_id: string; trajectory_b_id: string; b_on_left: boolean }>(
      "select trajectory_id, trajectory_b_id, b_on_left from audit_items where id = $1 and batch_id = $2",
      [itemId, setup.batchId],
    );
    expect(item, "the queue handed out a pair of this batch").toBeTruthy();
    const a = ledger.get(item.trajectory_id)!;
    const b = ledger.get(item.trajectory_b_id)!;
    const [left, right] = item.b_on_left ? [b, a] : [a, b];
    await expect(page.getByTestId("pair-form")).toHaveAttribute("data-ready", "true");
    await expect(page.getByTestId("pair-left")).toContainText(left.trajectory_id);
    await expect(page.getByTestId("pair-right")).toContainText(right.trajectory_id);

    if (n === 0) {
      await page.keyboard.press("?");
      const keys = page.getByRole("dialog", { name: "Keys" });
      await expect(keys).toBeVisible();
      for (const line of ["A (left) is better", "B (right) is better", "a tie", "the next pair"])
        await expect(keys).toContainText(line);
      await page.keyboard.press("?");
      await expect(keys).toBeHidden();
    }

    // The raw answers an annotator's browser can ask for, with their cookies: the HTML and the RSC payload.
    const html = await page.request.get(`/pairwise?item=${itemId}`);
    const rsc = await page.request.get(`/pairwise?item=${itemId}`, { headers: { RSC: "1" } });
    const htmlBody = await html.text();
    const rscBody = await rsc.text();
    expect(htmlBody).toContain(left.trajectory_id);
    expect(rscBody).toContain(right.trajectory_id);
    expect(rscBody.length).toBeGreaterThan(1000);
    await seen.settle();
    const before = [...seen.bodies, { url: "html", body: htmlBody }, { url: "rsc", body: rscBody }];
    const leaks = before.flatMap((x) =>
      needles(a, b)
        .filter((s) => x.body.includes(s))
        .map((s) => `${s} in ${x.url}`),
    );
    expect(leaks, "ledger values sent before the judgement").toEqual([]);
    seen.bodies.length = 0;

    await page.keyboard.press(key);
    const pressed = { a: "A is better", b: "B is better", t: "Tie" }[key];
    await expect(page.getByRole("button", { name: new RegExp(`^${pressed}`) })).toHaveAttribute("aria-pressed", "true");
    await page.keyboard.press("Enter");

    const reveal = page.getByTestId("pair-reveal");
    await expect(reveal).toBeVisible();
    await expect(page.getByTestId("pair-ledger-reward")).toHaveText([left.reward.toFixed(3), right.reward.toFixed(3)]);
    const higher = a.reward > b.reward ? a : b;
    const preferred = key === "t" ? null : key === "a" ? left : right;
    const verdict =
      a.reward === b.reward ? "ledger_tie" : preferred === null ? "tie" : preferred === higher ? "agree" : "inversion";
    await expect(page.getByTestId("pair-verdict")).toHaveAttribute("data-verdict", verdict);
    const stored = await query<{ choice: string; preferred_trajectory_id: string | null }>(
      "select choice, preferred_trajectory_id from pair_reviews where item_id = $1",
      [itemId],
    );
    expect(stored).toEqual([
      { choice: { a: "left", b: "right", t: "tie" }[key], preferred_trajectory_id: preferred?.trajectory_id ?? null },
    ]);
    judged.push(itemId);
    await seen.settle();
    seen.bodies.length = 0;
    if (n < choices.length - 1) {
      await expect(page.getByTestId("reveal-keys")).toHaveAttribute("data-ready", "true");
      await page.keyboard.press("n");
    }
  }
  expect(new Set(judged).size).toBe(3);
});
