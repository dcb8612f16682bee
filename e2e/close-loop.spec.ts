// The loop closed in the browser: a lead takes a dispute from the adjudication page (the spec was wrong: a
// damaged-item refund also needs a return label), opens the spec workbench with the item's rollout selected, fixes
// the spec, tries it (the review would now agree), applies it, and sees the defect fixed and verified and the item
// agree on the agreement's "now" basis. The run, its case and its one disputed item are this spec's own.
import { spawnSync } from "node:child_process";
import { query, SETUP_TIMEOUT, setupBatch, type Setup } from "./audit-setup.ts";
import { expect, test } from "./fixtures/auth.ts";

test.describe.configure({ timeout: SETUP_TIMEOUT });

const fix = (spec: { allowed_writes: string[]; required_writes: unknown[] }) => ({
  ...spec,
  allowed_writes: [...spec.allowed_writes, "logistics.create_return"],
  required_writes: [...spec.required_writes, { tool: "logistics.create_return" }],
});

let run: Setup;
test.beforeAll(async () => {
  run = await setupBatch("loop", ["honest"]);
  const [c] = await query<{ verifier_spec: { allowed_writes: string[]; required_writes: unknown[] } }>(
    "select verifier_spec from cases where ticket_id = $1",
    [run.items[0].ticketId],
  );
  // The annotator's review gives the score of the fixed spec: it disagrees with the ledger's 1.000.
  const r = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "lib/testing/review-as-revised.ts",
      run.items[0].itemId,
      "annotator@verity.local",
      JSON.stringify(fix(c.verifier_spec)),
    ],
    { encoding: "utf8", env: process.env, timeout: 120_000 },
  );
  if (r.status !== 0) throw new Error(`review failed: ${r.stderr}\n${r.stdout}`);
  expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toMatchObject({ ok: true, disagrees: true });
});

test.describe("the lead", () => {
  test.use({ role: "lead" });

  test("goes from a dispute to the workbench, fixes the spec, applies it and sees the item agree", async ({ page }) => {
    const item = run.items[0];
    await page.goto(`/audit/adjudication?item=${item.itemId}`);
    await expect(page.getByTestId("dispute")).toContainText(item.trajectoryId);
    const verdict = page.getByRole("form", { name: "Verdict" });
    await expect(verdict).toHaveAttribute("data-ready", "true");
    await verdict.locator("label").filter({ hasText: "Spec wrong" }).click();
    await expect(verdict.getByRole("radio", { name: /Spec wrong/ })).toBeChecked();
    await page.getByRole("button", { name: /Record verdict/ }).click();
    await expect(page.getByRole("status").filter({ hasText: "Verdict recorded" })).toBeVisible();
    const [defect] = await query<{ status: string }>("select status::text from defects where ticket_id = $1", [
      item.ticketId,
    ]);
    expect(defect.status).toBe("open");
    // the queue has moved on to the next dispute; the notice leads back to the item and its fix links
    await page
      .getByRole("status")
      .getByRole("link", { name: `#${item.itemId}` })
      .click();
    await expect(page.getByTestId("dispute")).toContainText(item.trajectoryId);

    await page.getByRole("link", { name: `Open the spec workbench for ${item.ticketId}` }).click();
    await expect(page.getByRole("heading", { level: 1, name: item.ticketId })).toBeVisible();
    await expect(page.getByText("selected rollout")).toBeVisible();
    await expect(page.getByText(/answers adjudication #\d+/)).toBeVisible();
    const editor = page.getByLabel("verifier_spec");
    await editor.fill(JSON.stringify(fix(JSON.parse(await editor.inputValue())), null, 2));
    await expect(page.getByText("Valid spec.")).toBeVisible();
    await page.getByRole("button", { name: "Try it" }).click();
    await expect(page.getByRole("status").filter({ hasText: "rollouts scored under the draft" })).toContainText(
      "1 reviews would now agree",
    );
    const row = page.locator("tr[data-selected]");
    await expect(row).toContainText(item.trajectoryId);
    await expect(row.locator("td").nth(5)).toContainText("annotator@verity.local: disagreed → agrees");

    await page.getByLabel("Reason for this version").fill("the return label is part of a damaged-item refund");
    await page.getByRole("button", { name: "Apply: save and re-score" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved version 2" })).toContainText(
      "1 spec defect fixed by v2, 1 verified (their items now agree)",
    );
    const history = page.locator("section").filter({ has: page.getByRole("heading", { name: "Versions" }) });
    await expect(history.getByRole("row").filter({ hasText: "v2" })).toContainText("adjudications");
    expect(await query("select status::text, fix_ref from defects where ticket_id = $1", [item.ticketId])).toEqual([
      { status: "verified", fix_ref: "2" },
    ]);

    // The agreement on the "now" basis: the batch's one item agrees.
    await page.goto(`/agreement?batch=${run.batchId}&basis=now`);
    await expect(page.getByText(/after 1 spec fix/)).toBeVisible();
  });
});
