// A lead opens a case's spec workbench, sees the draft validated as they type, tries a fixed spec on the ticket's
// rollouts (the dry run shows the reward change), applies it and finds the new version in the history; the ledger
// then holds the superseded entry and the new one, which records version 2. A researcher may not open the page.
import { query, SETUP_TIMEOUT, setupBatch, type Setup } from "./audit-setup.ts";
import { expect, test } from "./fixtures/auth.ts";

test.describe.configure({ timeout: SETUP_TIMEOUT });

let run: Setup;
test.beforeAll(async () => {
  run = await setupBatch("cases", ["honest"], { sample: false });
});

test.describe("the lead", () => {
  test.use({ role: "lead" });

  test("fixes a spec in the workbench, tries it, applies it and sees version 2", async ({ page }) => {
    const item = run.items[0];
    const [rollout] = await query<{ id: string }>("select id::text from rollouts where trajectory_id = $1", [
      item.trajectoryId,
    ]);
    await page.goto(`/cases/${encodeURIComponent(item.ticketId)}?rollout=${rollout.id}`);
    await expect(page.getByRole("heading", { level: 1, name: item.ticketId })).toBeVisible();
    await expect(page.getByText("selected rollout")).toBeVisible();
    const editor = page.getByLabel("verifier_spec");
    const spec = JSON.parse(await editor.inputValue());

    // A misspelt field is named by its path as it is typed, and the buttons wait for a valid spec.
    await editor.fill(JSON.stringify({ ...spec, handof: "allowed" }, null, 2));
    await expect(page.getByRole("list", { name: "Spec errors" })).toContainText(
      'verifier_spec.handof: unknown field "handof"',
    );
    await expect(page.getByRole("button", { name: "Try it" })).toBeDisabled();

    // The fix: the return label is a required write too (the honest rollout never creates one).
    const fixed = {
      ...spec,
      allowed_writes: [...spec.allowed_writes, "logistics.create_return"],
      required_writes: [...spec.required_writes, { tool: "logistics.create_return" }],
    };
    await editor.fill(JSON.stringify(fixed, null, 2));
    await expect(page.getByText("Valid spec.")).toBeVisible();
    await page.getByRole("button", { name: "Try it" }).click();
    await expect(page.getByRole("status").filter({ hasText: "rollouts scored under the draft" })).toContainText(
      "1 rollouts scored under the draft: 1 with another reward",
    );
    const row = page.locator("tr[data-selected]");
    await expect(row).toContainText(item.trajectoryId);
    await expect(row.locator("td").nth(1)).toHaveText("1.000");
    await expect(row.locator("td").nth(2)).not.toHaveText("1.000");
    await expect(row.locator("td").nth(4)).toContainText("logistics.create_return");
    // Nothing is stored by trying.
    expect(await query("select version from case_versions where ticket_id = $1", [item.ticketId])).toHaveLength(1);

    await page.getByLabel("Reason for this version").fill("the return label is part of a damaged-item refund");
    await page.getByRole("button", { name: "Apply: save and re-score" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved version 2" })).toContainText(
      "re-scored 1 rollouts, 1 with another reward",
    );
    const history = page.locator("section").filter({ has: page.getByRole("heading", { name: "Versions" }) });
    await expect(history.getByRole("row").filter({ hasText: "v2" })).toContainText(
      "the return label is part of a damaged-item refund",
    );
    await expect(history.getByRole("row").filter({ hasText: "v2" })).toContainText("lead@verity.local");
    const ledger = await query<{ case_version: number; is_current: boolean }>(
      "select case_version, is_current from ledger where trajectory_id = $1 order by id",
      [item.trajectoryId],
    );
    expect(ledger).toEqual([
      { case_version: 1, is_current: false },
      { case_version: 2, is_current: true },
    ]);
  });
});

test.describe("a researcher", () => {
  test.use({ role: "researcher" });

  test("may not open the workbench", async ({ page }) => {
    await page.goto(`/cases/${encodeURIComponent(run.items[0].ticketId)}`);
    await expect(page.getByRole("heading", { name: /not allowed|forbidden|no access/i })).toBeVisible();
    await expect(page.getByLabel("verifier_spec")).toHaveCount(0);
  });
});
