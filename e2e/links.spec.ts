// Ids are links, followed as a lead would: a batch's name to its items, an item's rollout to its page, its step to
// the browser filtered to that step, its ticket to its case, the batch's creation in the activity log to its items,
// a run's steps and chart points to the browser, a rollout's group to the replies side by side and back. Before that, the
// annotator who reviews the batch's item is refused while a claim is unanswered.
import { SETUP_TIMEOUT, query, setupBatch, type Setup } from "./audit-setup.ts";
import { expect, test } from "./fixtures/auth.ts";
import { answerClaims, openBatchFromQueue } from "./fixtures/review-form.ts";

// In order: the lead follows the item the annotator reviewed.
test.describe.configure({ mode: "serial", timeout: SETUP_TIMEOUT });

let setup: Setup;
test.beforeAll(async () => {
  test.setTimeout(SETUP_TIMEOUT);
  setup = await setupBatch("links", ["honest"]);
});

const STEP_FILTER = /\/trajectories\?run=[^&]+&step_from=\d+&step_to=\d+/;

test.describe("the annotator", () => {
  test.use({ role: "annotator" });

  test("ctrl+enter with claims unanswered is refused, naming them; answered, the review is stored", async ({
    page,
  }) => {
    const item = setup.items[0];
    await openBatchFromQueue(page, setup.batchName);
    await page.waitForURL(new RegExp(`/review\\?item=${item.itemId}$`));
    await expect(page.getByTestId("annotation-form")).toHaveAttribute("data-ready", "true");
    for (let i = 0; i < 5; i++) await page.keyboard.press("4");
    await expect(page.getByTestId("human-reward-value")).toHaveText("1.000");
    await expect(page.locator("[id='write-finance.issue_refund'] [data-answer]")).toHaveAttribute(
      "data-answer",
      "none",
    );

    await page.keyboard.press("Control+Enter");
    const alert = page.getByTestId("annotation-form").getByRole("alert");
    await expect(alert).toContainText("Answer every claim first, yes or no (unanswered: finance.issue_refund (write)");
    await expect(alert).toContainText("logistics.create_return (write)");
    // the cursor is taken to the first unanswered claim, and nothing reached the server
    await expect(page.locator("[id='write-finance.issue_refund']")).toHaveAttribute("aria-current", "true");
    await expect(page.getByTestId("reveal")).toHaveCount(0);
    expect(await query("select 1 from reviews where item_id = $1", [item.itemId])).toHaveLength(0);

    await answerClaims(page, ["write-finance.issue_refund"]);
    await page.keyboard.press("Control+Enter");
    await expect(page.getByTestId("reveal")).toBeVisible();
    const [stored] = await query<{ claims: { claimed_writes: string[] } }>(
      "select claims from reviews where item_id = $1",
      [item.itemId],
    );
    expect(stored.claims.claimed_writes).toEqual(["finance.issue_refund"]);
  });
});

test.describe("a lead", () => {
  test.use({ role: "lead" });

  test("follows a batch to its items, a rollout, its step and its ticket's case", async ({ page }) => {
    const item = setup.items[0];
    await page.goto("/audit");
    await page.getByTestId(`batch-${setup.batchId}`).getByRole("link", { name: setup.batchName, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/agreement/items\\?batch=${setup.batchId}$`));

    await page.getByTestId("agreement-items").getByRole("link", { name: item.trajectoryId, exact: true }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(item.trajectoryId);

    // the header under the id: "Run R · step S · ticket T · group G"
    const described = page.locator("h1 + p");
    const step = described.getByRole("link", { name: /^\d[\d,]*$/ });
    const stepText = (await step.innerText()).replace(/,/g, "");
    await step.click();
    await expect(page).toHaveURL(new RegExp(`step_from=${stepText}&step_to=${stepText}`));
    await expect(page.getByRole("link", { name: item.trajectoryId, exact: true })).toBeVisible();

    await page.goBack();
    await described.getByRole("link", { name: item.ticketId, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/cases/${item.ticketId}\\?rollout=\\d+$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(item.ticketId);
  });

  test("follows the batch's creation in the activity log to its items", async ({ page }) => {
    await page.goto(`/admin/activity-log?action=audit.batch_create`);
    await page.getByRole("link", { name: `audit_batch ${setup.batchId}`, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/agreement/items\\?batch=${setup.batchId}$`));
    await expect(
      page.getByTestId("agreement-items").getByRole("link", { name: setup.items[0].trajectoryId }),
    ).toBeVisible();
  });

  test("opens the browser on a step from the run's steps table and from a chart point", async ({ page }) => {
    await page.goto("/runs/grpo-main");
    const first = page.getByTestId("steps-table").getByRole("link").first();
    await first.click();
    await expect(page).toHaveURL(STEP_FILTER);
    await expect(page).toHaveURL(/run=grpo-main/);
    await expect(page.locator("tbody tr").first()).toBeVisible();

    await page.goto("/runs/grpo-main");
    const chart = page.locator("[data-chart='hit-rate']").getByRole("application");
    await expect(chart).toBeVisible();
    await chart.hover();
    await chart.click();
    await expect(page).toHaveURL(STEP_FILTER);
  });

  test("compares a group's replies side by side under its case, and goes back to the rollout", async ({ page }) => {
    await page.goto("/trajectories?run=grpo-main");
    const first = page.locator("tbody tr").first().getByRole("link").first();
    const id = await first.innerText();
    await first.click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(id);
    await page.getByRole("link", { name: /^group / }).click();
    await expect(page).toHaveURL(/\/groups\?/);
    const replies = page.getByTestId("group-reply");
    // the group's page has replaced the section's loading skeleton
    await expect(page.getByTestId("advantage").first()).toBeVisible();
    const k = await page.getByTestId("advantage").count();
    expect(k).toBeGreaterThan(1);
    await expect(replies).toHaveCount(k);
    // every reply in full, each with its rollout's link
    for (let i = 0; i < k; i++) {
      await expect(replies.nth(i).locator("p")).not.toHaveText("");
      await expect(replies.nth(i).getByRole("link")).toHaveCount(1);
    }
    await expect(page.getByText("Case (every rollout of the group answers it)")).toBeVisible();
    await page.getByRole("link", { name: `Back to ${id}`, exact: true }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(id);
  });
});
