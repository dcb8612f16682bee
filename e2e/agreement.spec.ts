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
  // the filtered report has replaced the loading skeleton
  await expect(page.getByTestId(`guardrail-row-${code}`)).toBeVisible();

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

test("the success verdict shows κ, AC1, PABAK and each class's agreement with intervals, the prevalence and what to read", async ({
  page,
}) => {
  await page.goto("/agreement");
  await expect(page.getByTestId("verdict-prevalence")).toHaveText(
    /The ledger passes \d+% of these items, the human side \d+% · n = \d+/,
  );
  const rows = [
    "verdict-kappa",
    "verdict-ac1",
    "verdict-pabak",
    "verdict-positive-agreement",
    "verdict-negative-agreement",
  ];
  for (const id of rows)
    await expect(page.getByTestId(id).locator("td").nth(2)).toHaveText(/^-?\d\.\d{3} to -?\d\.\d{3}$/);
  // κ is marked as the one to read, or at extreme prevalence both classes' own agreement; AC1 never is
  const marked = async (ids: string[]) =>
    page
      .locator(ids.map((id) => `[data-testid=${id}]`).join(", "))
      .getByText("read this")
      .count();
  const kappa = await marked(["verdict-kappa"]);
  const specific = await marked(["verdict-positive-agreement", "verdict-negative-agreement"]);
  expect([kappa, specific]).toEqual(kappa ? [1, 0] : [0, 2]);
  expect(await marked(["verdict-ac1", "verdict-pabak"])).toBe(0);
  await expect(page.getByTestId("prevalence-note")).toContainText("read the positive and negative agreement");
  // the same figures in the JSON the API serves
  const body = await (await page.request.get("/api/agreement")).json();
  expect(body.verdict.ac1.interval.lower).toBeLessThanOrEqual(body.verdict.ac1.value);
  expect(body.verdict).toHaveProperty("prevalence.ledger");
  expect(body.guardrails[0].figures).toHaveProperty("pabak.value");
  expect(body.verdict).toHaveProperty("positiveAgreement.interval.lower");
  expect(body.guardrails[0].figures).toHaveProperty("negativeAgreement.value");
});

test("κ, α, ρ and π stay symbols under the uppercase label style", async ({ page }) => {
  await page.goto("/agreement");
  await expect(page.getByTestId("headline")).toBeVisible();
  // innerText is what is drawn (after text-transform); an uppercased κ would read "Κ", α "Α", ρ "Ρ"
  for (const label of ["κ success verdict", "α between annotators", "Spearman ρ"]) {
    const el = page.getByText(label, { exact: true }).first();
    await expect(el).toBeVisible();
    const drawn = await el.innerText();
    expect(drawn, label).toContain(label.match(/[α-ω]/)![0]);
    expect(drawn, label).not.toMatch(/[Α-Ω]/);
  }
  const symbol = page.getByText("κ success verdict", { exact: true }).first().getByText("κ", { exact: true });
  await expect(symbol).toHaveCSS("text-transform", "none");
});

test("the items list sorts, filters and pages through the URL, and links each item to its rollout and verdict", async ({
  page,
}) => {
  await page.goto("/agreement/items?size=10");
  const rows = page.getByTestId("agreement-items").locator("> tr");
  await expect(rows).toHaveCount(10);
  const total = Number((await page.getByTestId("items-range").innerText()).match(/of (\d+)/)![1]);
  expect(total).toBeGreaterThan(20);
  const ids = () => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-item")));
  const ledger = async () => (await rows.getByTestId("row-ledger").allInnerTexts()).map(Number);

  // sort by ledger reward, ascending, from the form
  const form = page.getByRole("form", { name: "Item list" });
  await form.getByLabel("Sort by").selectOption("ledger");
  await form.getByLabel("Order").selectOption("asc");
  await form.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/sort=ledger/);
  await expect(page).toHaveURL(/dir=asc/);
  // the sorted rows are streamed in after the URL changes (CI once read none in between): waited for, in order
  const ascending = (xs: number[]) => xs.every((x, i) => i === 0 || xs[i - 1] <= x);
  await expect
    .poll(async () => {
      const shown = await ledger();
      return shown.length === 10 && ascending(shown);
    })
    .toBe(true);
  const p1 = await ledger();
  expect(p1).toHaveLength(10);
  expect(p1).toEqual([...p1].sort((a, b) => a - b));
  const ids1 = await ids();

  // the next page continues after the last row: by key, not by offset
  await page.getByRole("link", { name: "Next page" }).click();
  await expect(page).toHaveURL(/after=/);
  await expect(page.getByTestId("items-range")).toContainText(`11–20 of ${total}`);
  const p2 = await ledger();
  expect(p2[0]).toBeGreaterThanOrEqual(p1.at(-1)!);
  expect(p2).toEqual([...p2].sort((a, b) => a - b));
  const ids2 = await ids();
  expect(ids2.filter((id) => ids1.includes(id))).toEqual([]);
  await page.getByRole("link", { name: "Previous page" }).click();
  await expect(page).toHaveURL(/before=/);
  expect(await ids()).toEqual(ids1);

  // disagreements first, within the same sort
  await form.getByLabel("Disagreements first").check();
  await form.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/disagreementsFirst=1/);
  // the new rows are streamed in after the URL changes: the first one's flag is waited for, then all are read
  await expect(rows.first()).toHaveAttribute("data-disagrees", "true");
  await expect(rows).toHaveCount(10);
  const flags = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-disagrees")));
  expect(flags[0]).toBe("true");
  expect(flags.slice(flags.indexOf("false") < 0 ? flags.length : flags.indexOf("false"))).not.toContain("true");

  // filter by annotator and batch (the first row's): every row is theirs
  const annotator = (await rows.first().getByTestId("row-reviewers").innerText()).split(", ")[0];
  const batch = await rows.first().getByTestId("row-batch").innerText();
  await form.getByLabel("Annotator").selectOption(annotator);
  await form.getByLabel("Batch").selectOption({ label: batch });
  await form.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/batch=\d+/);
  await expect(page).toHaveURL(new RegExp(`annotator=${encodeURIComponent(annotator)}`));
  await expect(rows.first()).toBeVisible();
  for (const who of await rows.getByTestId("row-reviewers").allInnerTexts()) expect(who).toContain(annotator);
  for (const b of await rows.getByTestId("row-batch").allInnerTexts()) expect(b).toBe(batch);

  // filter by guardrail: every row has it flagged on one side
  await page.goto("/agreement/items?size=10&sort=ledger&dir=asc");
  const flagged = (await rows.getByTestId("row-ledger-guardrails").allInnerTexts()).find((t) => t !== "–");
  const code = flagged!.split(", ")[0];
  expect(code).toMatch(/^[a-z_]+$/);
  await form.getByLabel("Guardrail").selectOption(code);
  await form.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`guardrail=${code}`));
  for (let n = 0; n < (await rows.count()); n++) await expect(rows.nth(n)).toContainText(code);

  // each item links to its rollout, a disputed one to its adjudication
  await page.goto("/agreement/items?size=10&disagreementsFirst=1");
  const first = rows.first();
  await expect(first.locator('a[href^="/trajectories/"]')).toHaveCount(1);
  const verdict = first.locator('a[href^="/audit/adjudication?item="]');
  await expect(verdict).toHaveAttribute("href", `/audit/adjudication?item=${await first.getAttribute("data-item")}`);
  await verdict.click();
  await expect(page.getByTestId("dispute")).toBeVisible();
});

test("a bad sort, order or cursor on the items list is named on the page", async ({ page }) => {
  const res = await page.goto("/agreement/items?sort=bogus&dir=up&after=zz");
  expect(res?.status()).toBe(200);
  await expect(page.getByText(/sort: /)).toBeVisible();
  await expect(page.getByText(/dir: /)).toBeVisible();
  await expect(page.getByText(/after: /)).toBeVisible();
  await expect(page.getByTestId("agreement-items")).toHaveCount(0);
});
