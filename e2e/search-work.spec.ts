// Turning a search into work: a lead audits a search's matches (a shadow-audit batch sampled from them, confirmed on
// the preview with the number of matches and the sample size), and a researcher saves a search whose share of each
// step's rollouts is charted on the monitors page, with its alarm line.
import { query, SETUP_TIMEOUT, setupBatch, type Setup } from "./audit-setup.ts";
import { expect, test } from "./fixtures/auth.ts";

test.describe.configure({ timeout: SETUP_TIMEOUT });

// 12 tickets, one rollout each: the four empty promises close the ticket (tool ticket.close), the rest refund.
const KINDS = ["empty_promise", "honest", "honest", "empty_promise", "honest", "honest"] as const;
let run: Setup;
test.beforeAll(async () => {
  run = await setupBatch("search-work", [...KINDS, ...KINDS], { sample: false });
});

const SEARCH = "tool:ticket.close";
const closers = () => run.items.filter((i) => i.kind === "empty_promise").map((i) => i.trajectoryId);

test.describe("the lead", () => {
  test.use({ role: "lead" });

  test("audits a search's matches: the batch holds only matching rollouts", async ({ page }) => {
    await page.goto(`/trajectories?${new URLSearchParams({ run: run.runId, q: SEARCH })}`);
    await expect(page.getByTestId("match-count")).toHaveText("4 matching");
    await page.getByRole("link", { name: "Audit these" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "New audit batch" })).toBeVisible();
    await expect(page.getByTestId("search-scope")).toContainText("4 scorable rollouts");
    const form = page.getByRole("form", { name: "Batch parameters" });
    await form.getByLabel("Rate").fill("1");
    await form.getByLabel("Salt").fill("search-work");
    await form.getByRole("button", { name: "Preview" }).click();
    await expect(page).toHaveURL(/salt=search-work/);
    const preview = page.getByTestId("preview");
    await expect(preview).toContainText("Matching rollouts4");
    await page.getByRole("button", { name: "Create batch (4 items)" }).click();
    await expect(page).toHaveURL(/\/audit\?created=\d+/);
    const batchId = Number(new URL(page.url()).searchParams.get("created"));
    const items = await query<{ trajectory_id: string; inclusion_prob: number }>(
      "select trajectory_id, inclusion_prob from audit_items where batch_id = $1 order by trajectory_id",
      [batchId],
    );
    expect(items.map((i) => i.trajectory_id)).toEqual(closers().sort());
    expect(items.every((i) => i.inclusion_prob === 1)).toBe(true);
  });
});

test.describe("the researcher", () => {
  test.use({ role: "researcher" });

  test("saves a search and finds its share per step charted on the monitors page", async ({ page }) => {
    await page.goto(`/trajectories?${new URLSearchParams({ run: run.runId, q: SEARCH })}`);
    await expect(page.getByTestId("match-count")).toHaveText("4 matching");
    // researchers read and export, but do not draw audit batches
    await expect(page.getByRole("link", { name: "Audit these" })).toHaveCount(0);
    await page.getByText("Save this search").click();
    const form = page.getByRole("form", { name: "Save this search" });
    const name = `closes ${run.runId}`;
    await form.getByLabel("Name").fill(name);
    await form.getByLabel(`Only in run ${run.runId}`).check();
    await form.getByLabel("Alarm line (optional)").fill("0.25");
    await form.getByRole("button", { name: "Save" }).click();
    await expect(form.getByRole("status")).toHaveText(`Saved as "${name}".`);

    await page.goto(`/monitors?${new URLSearchParams({ run: run.runId })}`);
    const chart = page.getByRole("region", { name });
    await expect(chart).toBeVisible();
    await expect(chart.locator('[data-chart="search-share"]')).toBeVisible();
    await expect(chart).toContainText("alarm line at 25%");
    // step 10: 4 of 12 rollouts close the ticket
    const csv = await page.request.get(
      await chart.getByRole("link", { name: /CSV/ }).getAttribute("href").then(String),
    );
    expect(await csv.text()).toBe("step,rollouts,matching rollouts,share matching\r\n10,12,4,0.3333333333333333\r\n");
  });
});
