import { expect, hydrated, test } from "./fixtures/auth.ts";
import { createApiTokens } from "./fixtures/samples.ts";

// Every address answers like the console: a malformed percent-encoding in a dynamic segment is the console's 400
// page (JSON for the APIs), not a bare 500 from Next's router; the run page and its CSV downloads name a bad search
// parameter instead of ignoring it, and a parameter given twice is an error rather than a silent 0-match. The small
// demo has grpo-main and grpo-hacking (steps 0–29,250).
const SLOW = { timeout: 20_000 };

test.describe("malformed addresses", () => {
  test.use({ role: "admin" });

  for (const path of ["/trajectories/abc%ZZ", "/runs/abc%ZZ", "/runs/%E0%A4%A", "/runs/abc%4"]) {
    test(`${path} is the console's 400 page`, async ({ page }) => {
      const res = await page.goto(path);
      expect(res?.status()).toBe(400);
      await expect(page.getByRole("heading", { level: 1, name: "400 · Bad address" })).toBeVisible();
      await expect(page.getByText(/has a malformed percent-encoding/)).toBeVisible();
      await expect(page.getByRole("link", { name: "Back to your start page" })).toBeVisible();
    });
  }

  test("a signed-out visitor gets the same 400 page, and the page itself is not an address", async ({ browser }) => {
    const ctx = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const res = await ctx.request.get("/runs/abc%ZZ", { maxRedirects: 0 });
    expect(res.status()).toBe(400);
    expect(await res.text()).toContain("400 · Bad address");
    expect((await ctx.request.get("/bad-address", { maxRedirects: 0 })).status()).toBe(404);
    await ctx.close();
  });

  test("the APIs answer 400 JSON naming the segment", async ({ request }) => {
    const tokens = await createApiTokens();
    for (const [path, segment] of [
      ["/api/runs/%E0%A4%A/charts/hit-rate", "%E0%A4%A"],
      ["/api/runs/grpo-main/charts/%ZZ", "%ZZ"],
      ["/api/v1/runs/%ZZ/clusters", "%ZZ"],
      ["/api/v1/runs/abc%E0/ledger.ndjson", "abc%E0"],
    ]) {
      const res = await request.get(path, { headers: { authorization: `Bearer ${tokens.read}` } });
      expect(res.status(), path).toBe(400);
      expect(res.headers()["content-type"]).toMatch(/^application\/json/);
      const body = await res.json();
      expect(body.error.code).toBe("bad_request");
      expect(body.error.message).toContain(JSON.stringify(segment));
    }
  });

  test("a segment that decodes is decoded once, in pages and route handlers alike", async ({ page, request }) => {
    // "a%25ZZ" is the run "a%ZZ": decoding it a second time used to throw (500) in the route handlers
    const csv = await request.get("/api/runs/a%25ZZ/charts/hit-rate");
    expect(csv.status()).toBe(404);
    expect((await csv.json()).error.message).toBe('No run "a%ZZ".');
    // and "grpo%252Dmain" is the run "grpo%2Dmain", not grpo-main
    expect((await request.get("/api/runs/grpo%252Dmain/charts/hit-rate")).status()).toBe(404);
    expect((await request.get("/api/runs/grpo%2Dmain/charts/hit-rate")).status()).toBe(200);
    const tokens = await createApiTokens();
    const v1 = await request.get("/api/v1/runs/a%25ZZ/clusters", {
      headers: { authorization: `Bearer ${tokens.read}` },
    });
    expect(v1.status()).toBe(404);
    // an unknown run is the console's 404, inside its sidebar
    const res = await page.goto("/runs/a%25ZZ");
    expect(res?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "404 · Not found" })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  });

  test("an unknown trajectory is the console's 404, though its page streams behind a loading skeleton", async ({
    page,
  }) => {
    expect((await page.goto("/trajectories/a%25ZZ"))?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "404 · Not found" })).toBeVisible();
  });
});

test.describe("the run page's search parameters", () => {
  test.use({ role: "lead" });
  test.describe.configure({ timeout: 60_000 });

  test("a bad step is shown at its field, and the range form stays editable", async ({ page }) => {
    const res = await page.goto("/runs/grpo-main?from=abc&to=15000");
    expect(res?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: "Run grpo-main" })).toBeVisible(SLOW);
    await hydrated(page);
    const from = page.getByLabel("From step");
    await expect(from).toHaveValue("abc", SLOW);
    await expect(from).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText("from must be a whole number of steps, 0 or more")).toBeVisible();
    // the good parameter is not lost with the bad one, and the charts show the whole run meanwhile
    await expect(page.getByLabel("To step")).toHaveValue("15000");

    await from.fill("-5");
    await page.getByRole("button", { name: "Zoom" }).click();
    await expect(page.getByText("from must be a whole number of steps, 0 or more")).toBeVisible();
    await expect(page).toHaveURL(/from=abc/);

    await from.fill("7500");
    await page.getByRole("button", { name: "Zoom" }).click();
    await expect(page).toHaveURL(/from=7500&to=15000/, SLOW);
    await expect(page.getByText("Showing steps 7,500–15,000 of 0–29,250")).toBeVisible(SLOW);
    await expect(page.getByText(/^from must/)).toHaveCount(0);
  });

  test("a reversed range, a parameter given twice and a bad smoothing are named", async ({ page }) => {
    await page.goto("/runs/grpo-main?from=15000&to=7500");
    await expect(page.getByText("from must not be after to")).toBeVisible(SLOW);
    await expect(page.getByLabel("From step")).toHaveValue("15000");
    await expect(page.getByLabel("To step")).toHaveValue("7500");

    await page.goto("/runs/grpo-main?to=3000&to=6000");
    await expect(page.getByText("to is given more than once; give it once")).toBeVisible(SLOW);

    await page.goto("/runs/grpo-main?smooth=7");
    await hydrated(page);
    await expect(page.getByText("smooth must be one of 1, 3, 5, 10 (1 is none)")).toBeVisible(SLOW);
    const smoothing = page.getByLabel("Smoothing");
    await expect(smoothing).toHaveAttribute("aria-invalid", "true");
    await smoothing.selectOption("5");
    await expect(page).toHaveURL(/smooth=5/);
    await expect(page.getByText(/^smooth must/)).toHaveCount(0);
  });

  test("an unknown parameter and a bad comparison are named on the page", async ({ page }) => {
    await page.goto(`/runs/grpo-main?colour=red&compare=${"x".repeat(201)}`);
    await expect(page.getByRole("alert").filter({ hasText: 'unknown parameter "colour"' })).toBeVisible(SLOW);
    await expect(page.getByText("compare must be at most 200 characters")).toBeVisible();
    await expect(page.getByRole("form", { name: "Overlay another run" }).getByRole("combobox")).toBeEnabled();
  });

  test("the CSV downloads answer 400 JSON naming the parameter", async ({ request }) => {
    for (const [query, message] of [
      ["from=abc", "from: must be a whole number of steps, 0 or more."],
      ["smooth=3&smooth=5", "smooth: is given more than once; give it once."],
      ["from=9000&to=10", "from: must not be after to."],
      ["smooth=2", "smooth: must be one of 1, 3, 5, 10 (1 is none)."],
      ["zoom=1", 'unknown parameter "zoom" (the run page takes from, to, compare, smooth).'],
    ]) {
      const res = await request.get(`/api/runs/grpo-main/charts/handoff?${query}`);
      expect(res.status(), query).toBe(400);
      expect(await res.json()).toEqual({ error: { code: "bad_request", message } });
    }
    const ok = await request.get("/api/runs/grpo-main/charts/handoff?from=7500&to=15000&smooth=");
    expect(ok.status()).toBe(200);
    expect(ok.headers()["content-disposition"]).toContain("grpo-main-handoff-7500-15000.csv");
  });
});

test.describe("the trajectory browser's run filter", () => {
  test.use({ role: "researcher" });

  test("a run given twice is named, not a silent 0 matching", async ({ page, request }) => {
    await page.goto("/trajectories?run=grpo-main&run=grpo-hacking");
    await expect(page.getByText("This link has a bad filter")).toBeVisible();
    await expect(page.getByText(/run: is given more than once; give it once/)).toBeVisible();
    await expect(page.getByTestId("match-count")).toHaveCount(0);
    const rows = await request.get("/api/ledger/rows?run=grpo-main&run=grpo-hacking");
    expect(rows.status()).toBe(400);
    expect((await rows.json()).error.message).toBe("run: is given more than once; give it once");
  });
});
