// What a signed-out visitor of a demo install sees: the demo accounts on the sign-in page, and the console's icon.
import { DEMO_PASSWORD, DEMO_USERS, expect, SignInPage, test } from "./fixtures/auth.ts";

test("the sign-in page of a demo install lists the demo accounts, and one signs in with what it shows", async ({
  page,
}) => {
  const form = new SignInPage(page);
  await form.goto();
  const demo = page.getByRole("region", { name: "Demo accounts" });
  for (const [role, email] of Object.entries(DEMO_USERS))
    await expect(demo.getByRole("row", { name: new RegExp(`^${email} ${role} ${DEMO_PASSWORD}$`) })).toBeVisible();
  const cells = demo.getByRole("row", { name: new RegExp(DEMO_USERS.researcher) }).getByRole("cell");
  await form.signIn(await cells.nth(0).innerText(), await cells.nth(2).innerText());
  await expect(page).not.toHaveURL(/\/sign-in/);
});

test("the icon is linked from every page and served without signing in", async ({ page }) => {
  await page.goto("/sign-in");
  const href = await page.locator('link[rel="icon"][type="image/svg+xml"]').getAttribute("href");
  expect(href).toMatch(/^\/icon\.svg/);
  const svg = await page.request.get(href!, { maxRedirects: 0 });
  expect(svg.status()).toBe(200);
  expect(svg.headers()["content-type"]).toContain("image/svg+xml");
  expect(await svg.text()).toContain("<svg");
  const ico = await page.request.get("/favicon.ico", { maxRedirects: 0 });
  expect(ico.status()).toBe(200);
  expect((await ico.body()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
});
