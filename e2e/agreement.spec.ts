import { expect, test } from "./fixtures/auth.ts";

// A lead reads the agreement report of the demo shadow audit, narrows it, and follows a figure to its items.
test.use({ role: "lead" });

test("filter by batch and guardrail, then follow a figure to the items behind it", async ({ page }) => {
  await page.goto("/agreement");
  await expect(page.getByRole("heading", { level: 1, name: "Agreement" })).toBeVisible();
  await expect(page.getByTestId("headline")).toHaveText(/%|too few to say/);

  const form = page.getByRole("form", { name: "Agreement filters" });
  const batch = form.getByLabel("Batch");
  const firstBatch = await batch.locator("option").nth(1).getAttribute("value");
  expect(firstBatch).toBeTruthy();
  await batch.selectOption(firstBatch!);
  await form.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`batch=${firstBatch}`));

  // the first guardrail the report tabulates, as a filter
  const row = page.locator("[data-testid^=guardrail-row-]").first();
  const code = (await row.getAttribute("data-testid"))!.replace("guardrail-row-", "");
  await page.getByRole("form", { name: "Agreement filters" }).getByLabel("Guardrail").selectOption(code);
  await page.getByRole("form", { name: "Agreement filters" }).getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`guardrail=${code}`));

  // follow the first non-zero cell of that guardrail's row to its items
  const cells = page.getByTestId(`guardrail-row-${code}`).getByRole("link");
  let followed = false;
  for (let i = 0; i < (await cells.count()); i++) {
    const n = Number(await cells.nth(i).innerText());
    if (n > 0) {
      await cells.nth(i).click();
      await expect(page).toHaveURL(/\/agreement\/items\?/);
      // the link keeps the active guardrail filter and names its row's guardrail separately
      const q = new URL(page.url()).searchParams;
      expect([q.get("guardrail"), q.get("code"), q.get("batch")]).toEqual([code, code, firstBatch]);
      await expect(page.getByTestId("agreement-items").locator("tr")).toHaveCount(n);
      followed = true;
      break;
    }
  }
  expect(followed).toBe(true);
  // and from an item to its rollout
  await page.getByTestId("agreement-items").getByRole("link").first().click();
  await expect(page.getByTestId("waterfall")).toBeVisible();
});

test("the JSON report is served to readers and refuses a bad filter", async ({ page }) => {
  const ok = await page.request.get("/api/agreement");
  expect(ok.status()).toBe(200);
  const body = await ok.json();
  expect(body).toHaveProperty("headline.n");
  const bad = await page.request.get("/api/agreement?tolerance=7");
  expect(bad.status()).toBe(400);
  expect((await bad.json()).error.message).toContain("tolerance: must be between 0 and 1");
});
