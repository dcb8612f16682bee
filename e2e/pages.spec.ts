import { expect, test } from "./fixtures/auth.ts";

// Every page of the console is served from the database (the e2e database holds the demo data). The admin may
// open every page, so these journeys run signed in as the demo admin.
test.describe("console pages", () => {
  test.use({ role: "admin" });

  test("runs lists the demo run and links to its page", async ({ page }) => {
    await page.goto("/runs");
    await expect(page.getByRole("heading", { level: 1, name: "Runs" })).toBeVisible();
    const link = page.getByRole("link", { name: "grpo-demo", exact: true }).first();
    await expect(link).toBeVisible();
    await link.click();
    await expect(page.getByRole("heading", { level: 1, name: "Run grpo-demo" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Steps" })).toBeVisible();
  });

  test("trajectories lists ledger entries and opens one", async ({ page }) => {
    await page.goto("/trajectories");
    await expect(page.getByRole("heading", { level: 1, name: "Trajectories" })).toBeVisible();
    const first = page.locator("tbody tr").first().getByRole("link").first();
    const id = await first.innerText();
    await first.click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(id);
    await expect(page.getByTestId("waterfall")).toBeVisible();
  });

  test("a bad filter in the URL is explained, not ignored", async ({ page }) => {
    await page.goto("/trajectories?after=abc&colour=red");
    await expect(page.getByText("This link has a bad filter")).toBeVisible();
    // named in the summary and, since it has no field of its own, above the form's Apply button
    await expect(page.getByText(/unknown filter "colour"\. Fix/)).toBeVisible();
    await expect(page.getByRole("form", { name: "Filters" }).getByText('unknown filter "colour"')).toBeVisible();
  });

  test("audit, agreement, clusters, monitors and admin read from the database", async ({ page }) => {
    for (const [path, heading] of [
      ["/audit", "Shadow audit"],
      ["/agreement", "Agreement"],
      ["/clusters", "Clusters"],
      ["/monitors", "Monitors"],
      ["/admin", "Admin"],
    ] as const) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    }
    await page.goto("/monitors");
    await expect(page.getByRole("link", { name: /^grpo-/ }).first()).toBeVisible();
    await page.goto("/clusters");
    await expect(page.getByText(/^Run .+, steps .+ rollouts/).first()).toBeVisible();
  });

  test("the sidebar reaches every section and marks the current one", async ({ page }) => {
    await page.goto("/runs");
    const nav = page.getByRole("navigation", { name: "Main" });
    for (const label of ["Runs", "Trajectories", "Audit", "Agreement", "Clusters", "Monitors", "Admin"]) {
      await expect(nav.getByRole("link", { name: label, exact: true })).toBeVisible();
    }
    await nav.getByRole("link", { name: "Monitors" }).click();
    await expect(nav.getByRole("link", { name: "Monitors" })).toHaveAttribute("aria-current", "page");
  });

  test("health reports the database and migrations as JSON", async ({ request }) => {
    const res = await request.get("/api/health");
    expect(res.status()).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ ok: true, database: "reachable", migrations: { current: true, pending: [] } });
  });
});
