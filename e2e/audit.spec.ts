// A lead defines a shadow-audit batch, previews the population and the sample, and creates it; the preview's URL
// reproduces the preview, and the created batch holds exactly the previewed items.
import { query, SETUP_TIMEOUT, setupBatch, type Setup } from "./audit-setup.ts";
import { expect, test } from "./fixtures/auth.ts";

// Multi-page journeys with CLI setup: generous on a loaded machine (hooks and tests alike).
test.describe.configure({ timeout: SETUP_TIMEOUT });

let run: Setup;
test.beforeAll(async () => {
  // 12 tickets, one rollout each, no batch yet: four empty promises, eight honest refunds.
  run = await setupBatch(
    "audit",
    [
      "empty_promise",
      "honest",
      "honest",
      "honest",
      "empty_promise",
      "honest",
      "honest",
      "honest",
      "empty_promise",
      "honest",
      "honest",
      "empty_promise",
    ],
    { sample: false },
  );
});

test.describe("the lead", () => {
  test.use({ role: "lead" });

  test("previews a stratified batch and creates exactly the previewed sample", async ({ page, context }) => {
    await page.goto("/audit");
    await page.getByRole("link", { name: "New batch" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "New audit batch" })).toBeVisible();
    const form = page.getByRole("form", { name: "Batch parameters" });
    await form.getByLabel("Run").selectOption(run.runId);
    await form.getByLabel("From step").fill("0");
    await form.getByLabel("To step").fill("100");
    await form.getByLabel("Rate").fill("0.25");
    await form.getByLabel("Salt").fill("e2e-salt");
    await form.getByLabel("Minimum per stratum").fill("3");
    await form.getByLabel("Overlap").fill("0.5");
    await form.getByLabel("Name").fill(`${run.batchName} lead batch`);
    await form.getByRole("button", { name: "Preview" }).click();

    await expect(page).toHaveURL(/salt=e2e-salt/);
    const preview = page.getByTestId("preview");
    await expect(preview).toContainText("Tickets in window12");
    await expect(preview).toContainText("Rollouts in window12");
    // E[tickets] with a top-up to 3 in the empty-promise stratum: more than 0.25 · 12 = 3
    const drawnText = await preview
      .getByText(/^\d+ items$/)
      .first()
      .innerText();
    const drawn = Number(drawnText.split(" ")[0]);
    expect(drawn).toBeGreaterThanOrEqual(3);
    await expect(page.locator(".preview-strata").getByRole("row", { name: /empty_promise/ })).toContainText("4");

    // How big the audit must be: one line per target over this window, and each stratum's need beside its draw
    const plan = page.getByTestId("audit-plan");
    for (const [id, label] of [
      ["plan-0.03", "±3%"],
      ["plan-0.05", "±5%"],
      ["plan-0.1", "±10%"],
    ])
      await expect(plan.getByTestId(id)).toContainText(label);
    await expect(plan).toContainText("design effect");
    // the items this batch draws in the stratum, as the preview's strata table counts them (its sixth column)
    const stratumRow = page.locator(".preview-strata").getByRole("row", { name: /empty_promise/ });
    const drawnInStratum = (await stratumRow.locator("td").nth(5).innerText()).trim();
    expect(drawnInStratum).toMatch(/^\d+$/);
    await expect(plan.getByTestId("plan-stratum-empty_promise").locator("td").last()).toHaveText(
      // the figure, then a "too small" badge when the stratum draws fewer than its need
      new RegExp(`^${drawnInStratum}(?!\\d)`),
    );

    // The URL alone reproduces the same draw.
    const other = await context.newPage();
    await other.goto(page.url());
    await expect(other.getByText(`${drawn} items`, { exact: true }).first()).toBeVisible();
    const hash = await page.getByText(/^items hash sha256:/).innerText();
    await expect(other.getByText(hash)).toBeVisible();
    await other.close();

    await page.getByRole("button", { name: `Create batch (${drawn} items)` }).click();
    await expect(page).toHaveURL(/\/audit\?created=\d+/);
    const batchId = Number(new URL(page.url()).searchParams.get("created"));
    await expect(page.getByRole("status")).toContainText(`Batch ${batchId} created`);
    const row = page.getByTestId(`batch-${batchId}`);
    await expect(row).toContainText(`${run.batchName} lead batch`);
    await expect(row.locator("td").nth(5)).toHaveText(String(drawn));

    const [batch] = await query<{
      salt: string;
      rate: number;
      min_per_stratum: number;
      manifest: { items_hash: string; population: { tickets: number } };
    }>("select salt, rate, min_per_stratum, manifest from audit_batches where id = $1", [batchId]);
    expect(batch).toMatchObject({ salt: "e2e-salt", rate: 0.25, min_per_stratum: 3 });
    expect(`items hash ${batch.manifest.items_hash}`).toBe(hash);
    expect(batch.manifest.population.tickets).toBe(12);
    const strata = await query<{ stratum: string; n: string }>(
      "select stratum, count(*)::text as n from audit_items where batch_id = $1 group by stratum",
      [batchId],
    );
    expect(Number(strata.find((s) => s.stratum === "empty_promise")?.n)).toBeGreaterThanOrEqual(3);
    const log = await query("select 1 from activity_log where action = 'audit.batch_create' and target_id = $1", [
      String(batchId),
    ]);
    expect(log).toHaveLength(1);
  });

  test("refuses a window that ends before it starts, on the field", async ({ page }) => {
    await page.goto(`/audit/new?runId=${encodeURIComponent(run.runId)}&stepFrom=50&stepTo=10&rate=0.01`);
    await expect(page.getByText("The window ends before it starts.")).toBeVisible();
    await expect(page.getByTestId("preview")).toHaveCount(0);
  });
});

test.describe("a researcher", () => {
  test.use({ role: "researcher" });

  test("sees the batches but cannot create one or adjudicate", async ({ page }) => {
    await page.goto("/audit");
    await expect(page.getByRole("heading", { level: 1, name: "Shadow audit" })).toBeVisible();
    await expect(page.getByRole("link", { name: "New batch" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: /Adjudication/ })).toHaveCount(0);
    expect((await page.goto("/audit/new"))?.status()).toBe(403);
  });
});
