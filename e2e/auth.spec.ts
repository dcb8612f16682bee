// Signing in and out through the real form, the session cookie, the failed sign-in limit and the security headers.
import { randomBytes } from "node:crypto";
import { DEMO_PASSWORD, DEMO_USERS, expect, hydrated, SignInPage, signIn, test } from "./fixtures/auth.ts";

test.describe("sign-in", () => {
  test("the form has an Email and a Password field and a Sign in button", async ({ page }) => {
    const form = new SignInPage(page);
    await form.goto();
    await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
    await expect(form.email()).toHaveAttribute("type", "email");
    await expect(form.password()).toHaveAttribute("type", "password");
    await expect(form.submit()).toBeEnabled();
    // OIDC is off unless configured: no single sign-on button, and its routes do not exist
    await expect(page.getByText("Sign in with single sign-on")).toHaveCount(0);
    expect((await page.request.get("/auth/oidc", { maxRedirects: 0 })).status()).toBe(404);
  });

  test("a wrong password and an unknown email get the same generic error", async ({ page }) => {
    const form = new SignInPage(page);
    await form.goto();
    // annotator2 signs in nowhere else, so this failure cannot add up to a lock for another spec
    await form.submitWith("annotator2@verity.local", "not the password");
    await expect(form.alert()).toHaveText("Email or password is wrong.");
    await form.submitWith(`nobody-${randomBytes(3).toString("hex")}@verity.local`, "not the password");
    await expect(form.alert()).toHaveText("Email or password is wrong.");
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test("malformed input is explained on the field", async ({ page }) => {
    const form = new SignInPage(page);
    await form.goto();
    await form.submitWith("not-an-email", "");
    await expect(page.getByText("Enter an email address like name@example.com.")).toBeVisible();
    await expect(page.getByText("Enter your password.")).toBeVisible();
    await expect(form.email()).toHaveAttribute("aria-invalid", "true");
  });

  test("signing in sets an HTTP-only SameSite=Lax session cookie and returns to the page asked for", async ({
    page,
    context,
  }) => {
    const res = await page.goto("/monitors");
    expect(new URL(res!.url()).pathname).toBe("/sign-in");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/monitors");
    const form = new SignInPage(page);
    await form.submitWith(DEMO_USERS.researcher, DEMO_PASSWORD);
    await expect(page).toHaveURL(/\/monitors$/);
    await expect(page.getByRole("heading", { level: 1, name: "Monitors" })).toBeVisible();
    const cookie = (await context.cookies()).find((c) => c.name === "verity_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", secure: false, path: "/" });
    expect(cookie!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // about VERITY_SESSION_HOURS (12) from now
    expect(cookie!.expires * 1000 - Date.now()).toBeGreaterThan(11.9 * 3_600_000);
    expect(cookie!.expires * 1000 - Date.now()).toBeLessThan(12.1 * 3_600_000);
  });

  test("signing out ends the session on the server, not only in the browser", async ({ page, context }) => {
    await signIn(page, DEMO_USERS.researcher);
    const token = (await context.cookies()).find((c) => c.name === "verity_session")!.value;
    await hydrated(page);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in$/, { timeout: 20_000 });
    await page.goto("/runs");
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fruns$/);
    // replaying the old cookie does not get back in
    const replay = await page.request.get("/runs", { headers: { cookie: `verity_session=${token}` }, maxRedirects: 0 });
    expect(replay.status()).toBe(307);
    expect(replay.headers()["location"]).toContain("/sign-in");
  });

  test(`five failed sign-ins for one email lock it with a clear message`, async ({ page }) => {
    const email = `locked-${randomBytes(3).toString("hex")}@verity.local`;
    const form = new SignInPage(page);
    await form.goto();
    for (let i = 0; i < 5; i++) {
      await form.submitWith(email, `guess ${i}`);
      await expect(form.alert()).toHaveText("Email or password is wrong.");
      // The answer re-renders the form and clears the password: wait for that before typing the next one, or the
      // re-render can land after the next fill and submit an empty field.
      await expect(form.password()).toHaveValue("");
    }
    await form.submitWith(email, "guess 6");
    await expect(form.alert()).toContainText("Too many failed sign-ins for this email. Try again in 15 minutes");
  });
});

test.describe("security headers", () => {
  test("pages, route handlers and static files carry them; scripts need this response's nonce", async ({
    page,
    request,
  }) => {
    const res = await page.goto("/sign-in");
    const h = res!.headers();
    expect(h["x-content-type-options"]).toBe("nosniff");
    expect(h["x-frame-options"]).toBe("DENY");
    expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    const csp = h["content-security-policy"];
    expect(csp).toContain("frame-ancestors 'none'");
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    // every script tag in the server's HTML carries that response's nonce (chunks loaded later ride on 'strict-dynamic')
    const again = await request.get("/sign-in");
    const againNonce = /'nonce-([^']+)'/.exec(again.headers()["content-security-policy"])?.[1];
    expect(againNonce).toBeTruthy();
    expect(againNonce).not.toBe(nonce);
    const tags = (await again.text()).match(/<script\b[^>]*>/g) ?? [];
    expect(tags.length).toBeGreaterThan(0);
    for (const tag of tags) expect(tag).toContain(`nonce="${againNonce}"`);

    for (const path of ["/api/health", "/api/v1/whoami"]) {
      const r = await request.get(path);
      expect(r.headers()["x-content-type-options"], path).toBe("nosniff");
      expect(r.headers()["content-security-policy"], path).toContain("frame-ancestors 'none'");
    }
    const css = await page.locator("link[rel=stylesheet]").first().getAttribute("href");
    const asset = await request.get(css!);
    expect(asset.status()).toBe(200);
    expect(asset.headers()["x-content-type-options"]).toBe("nosniff");
    expect(asset.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  });

  test("the sign-in form works under the policy (no CSP violations)", async ({ page }) => {
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await signIn(page, DEMO_USERS.lead);
    await expect(page.getByRole("heading", { level: 1, name: "Runs" })).toBeVisible();
    expect(violations).toEqual([]);
  });
});
