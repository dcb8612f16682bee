// Blind by construction: before an annotator submits an item, no response to them — HTML, RSC payload, server
// action answer — carries that item's ledger values. The item's score record is full of markers that cannot appear
// by accident (a reason message and guardrail evidence with a nonce, an LLM claims source with the nonce, a reward
// no human score can produce). Every response of the annotation flow is captured raw and searched; after submitting,
// the reveal must show them. Nor does any carry a reward function's result on the item (a weight no page shows by
// accident, the function's name).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page, Response } from "@playwright/test";
import { query, SETUP_TIMEOUT, setupBatch, verity, type Markers, type Setup } from "./audit-setup.ts";
import { expect, test } from "./fixtures/auth.ts";
import { answerClaims } from "./fixtures/review-form.ts";

test.use({ role: "annotator" });

// Multi-page journeys with CLI setup: generous on a loaded machine (hooks and tests alike).
test.describe.configure({ timeout: SETUP_TIMEOUT });

let setup: Setup;
/** A reward function run over the batch: its name and its reward on every item (a format rule that always matches). */
const REWARD_WEIGHT = 0.8642137;
let rewardFunction: string;
test.beforeAll(async () => {
  setup = await setupBatch("blind", ["empty_promise", "empty_promise"], { marked: true });
  rewardFunction = `blindmark-fn-${setup.batchName.split("-").at(-1)}`;
  const file = path.join(os.tmpdir(), `${rewardFunction}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({ components: [{ kind: "format", name: "marked", weight: REWARD_WEIGHT, pattern: "[\\s\\S]*" }] }),
  );
  try {
    verity(["reward", "add", file, "--name", rewardFunction]);
  } finally {
    fs.rmSync(file, { force: true });
  }
  verity(["reward", "run", rewardFunction, "--run", setup.runId, "--batch", String(setup.batchId)]);
  const stored = await query<{ reward: number }>(
    `select x.reward from reward_results x join reward_function_versions v on v.id = x.version_id
       join reward_functions f on f.id = v.function_id where f.name = $1`,
    [rewardFunction],
  );
  expect(stored.map((r) => r.reward)).toEqual(setup.items.map(() => REWARD_WEIGHT));
});

/** Every response body of the page's document, RSC and server-action traffic (static assets are the same for all). */
function capture(page: Page) {
  const bodies: { url: string; body: string }[] = [];
  const pending: Promise<void>[] = [];
  const onResponse = (res: Response) => {
    const type = res.request().resourceType();
    if (!["document", "fetch", "xhr"].includes(type)) return;
    pending.push(
      res
        .text()
        .then((body) => void bodies.push({ url: res.url(), body }))
        .catch(() => undefined),
    );
  };
  page.on("response", onResponse);
  return {
    bodies,
    settle: async () => {
      await Promise.all(pending);
    },
    stop: () => page.off("response", onResponse),
  };
}

const needles = (m: Markers) => [m.reasonMessage, m.claimsSource, m.evidence, m.reward, m.rewardShown, m.subscore];

function leaks(bodies: { url: string; body: string }[], m: Markers): string[] {
  const out: string[] = [];
  for (const b of bodies) for (const n of needles(m)) if (b.body.includes(n)) out.push(`${n} in ${b.url}`);
  return out;
}

test("no response carries the item's ledger values before submission; the reveal shows them after", async ({
  page,
}) => {
  const seen = capture(page);
  await page.goto("/queue");
  await expect(page.getByTestId("queue-batches")).toHaveAttribute("data-ready", "true");
  const rows = page.getByTestId("queue-batches").locator("li");
  await expect(rows.filter({ hasText: setup.batchName })).toHaveCount(1);
  const names = await rows.allInnerTexts();
  const index = names.findIndex((t) => t.includes(setup.batchName));
  expect(index).toBeGreaterThanOrEqual(0);
  expect(index).toBeLessThan(9);
  await page.keyboard.press(String(index + 1));
  await page.waitForURL(/\/review\?item=\d+/);
  const itemId = new URL(page.url()).searchParams.get("item")!;
  const item = setup.items.find((i) => i.itemId === itemId)!;
  expect(item, "the queue handed out an item of this batch").toBeTruthy();
  const m = item.markers!;

  await expect(page.getByTestId("annotation-form")).toHaveAttribute("data-ready", "true");
  // The RSC payload and the HTML of the annotation page, fetched directly with the annotator's cookies.
  const rsc = await page.request.get(`/review?item=${itemId}`, { headers: { RSC: "1" } });
  const html = await page.request.get(`/review?item=${itemId}`);
  seen.bodies.push({ url: "rsc", body: await rsc.text() }, { url: "html", body: await html.text() });
  expect((await rsc.text()).length).toBeGreaterThan(1000);

  // Fill part of the form so the draft autosave (a server action) answers at least once.
  for (const k of ["1", "2", "4"]) await page.keyboard.press(k);
  await expect(page.getByTestId("save-status")).toContainText("draft saved", { timeout: 10_000 });
  for (const k of ["4", "0"]) await page.keyboard.press(k);
  await expect(page.getByTestId("human-reward-value")).not.toHaveText("–");
  await expect(page.getByTestId("save-status")).toContainText("draft saved");
  // The other item of the batch is not leased to this annotator: nothing to see there either.
  const other = setup.items.find((i) => i.itemId !== itemId)!;
  const otherRes = await page.request.get(`/review?item=${other.itemId}`);
  seen.bodies.push({ url: "other item", body: await otherRes.text() });

  await seen.settle();
  expect(seen.bodies.length).toBeGreaterThan(3);
  expect(
    seen.bodies.some((b) => b.body.includes(item.trajectoryId)),
    "the captured responses are the annotation flow",
  ).toBe(true);
  expect(leaks(seen.bodies, m), "ledger values sent before submission").toEqual([]);
  expect(leaks(seen.bodies, other.markers!), "the other item's ledger values").toEqual([]);
  const rewardLeaks = seen.bodies.flatMap((b) =>
    [rewardFunction, String(REWARD_WEIGHT), REWARD_WEIGHT.toFixed(4)]
      .filter((n) => b.body.includes(n))
      .map((n) => `${n} in ${b.url}`),
  );
  expect(rewardLeaks, "a reward function's result sent before submission").toEqual([]);

  await answerClaims(page);
  const before = seen.bodies.length;
  await page.keyboard.press("Control+Enter");
  await expect(page.getByTestId("reveal")).toBeVisible();
  await seen.settle();
  const after = seen.bodies.slice(before);
  const reveal = await page.request.get(`/review?item=${itemId}`);
  after.push({ url: "reveal html", body: await reveal.text() });
  for (const n of [m.reasonMessage, m.claimsSource, m.rewardShown]) {
    expect(
      after.some((b) => b.body.includes(n)),
      `${n} on the reveal`,
    ).toBe(true);
  }
  await expect(page.getByTestId("ledger-reward")).toHaveText(m.rewardShown);
  await expect(page.getByText(m.reasonMessage)).toBeVisible();
  seen.stop();
});
