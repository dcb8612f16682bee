// An admin can take audit items, but an admin can read the ledger, so their review is recorded and shown apart on
// the agreement page with the reason, never counted (docs/audit.md).
import { SETUP_TIMEOUT, setupBatch, type Setup } from "./audit-setup.ts";
import { expect, test } from "./fixtures/auth.ts";
import { answerClaims, openBatchFromQueue } from "./fixtures/review-form.ts";

test.use({ role: "admin" });
test.describe.configure({ timeout: SETUP_TIMEOUT });

let setup: Setup;
test.beforeAll(async () => {
  setup = await setupBatch("excluded", ["honest"]);
});

test("an admin's review is listed apart with its reason and counts in no figure", async ({ page }) => {
  await openBatchFromQueue(page, setup.batchName);
  await page.waitForURL(/\/review\?item=\d+/);

  await expect(page.getByTestId("annotation-form")).toHaveAttribute("data-ready", "true");
  for (let i = 0; i < 5; i++) await page.keyboard.press("4");
  await expect(page.getByTestId("human-reward-value")).toHaveText("1.000");
  await answerClaims(page);
  await page.keyboard.press("Control+Enter");
  await expect(page.getByTestId("reveal")).toBeVisible();
  await expect(page.getByTestId("excluded-note")).toContainText(
    "Recorded, but not counted toward agreement: author's role (admin) can read the ledger",
  );

  await page.goto(`/agreement?batch=${setup.batchId}`);
  await expect(page.getByText("No reviewed items under these filters")).toBeVisible();
  await expect(page.getByText("Excluded reviews (1): recorded, not counted in any figure above")).toBeVisible();
  const excluded = page.getByTestId("excluded-review");
  await expect(excluded).toHaveCount(1);
  await expect(excluded).toContainText("admin@verity.local");
  await expect(excluded).toContainText(setup.items[0].trajectoryId);
  await expect(excluded).toContainText("author's role (admin) can read the ledger");

  const json = await (await page.request.get(`/api/agreement?batch=${setup.batchId}`)).json();
  expect(json.items).toBe(0);
  expect(json.excluded).toEqual([
    expect.objectContaining({
      reviewerEmail: "admin@verity.local",
      reason: "author's role (admin) can read the ledger",
    }),
  ]);
});
