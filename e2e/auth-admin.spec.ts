// An admin manages users, API tokens and reads the activity log; every change is visible to the people it affects.
import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, hydrated, SIGNED_OUT, SignInPage, signIn, test } from "./fixtures/auth.ts";

// Multi-step journeys across two browser contexts.
test.describe.configure({ timeout: 120_000 });

test.use({ role: "admin" });

async function createUser(page: Page, email: string, role: string, password: string) {
  await page.goto("/admin/users");
  await hydrated(page);
  const form = page.getByRole("form", { name: "Create user" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Role").selectOption(role);
  await form.getByLabel("Initial password").fill(password);
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(form.getByRole("status")).toHaveText(`Created ${email} (${role}).`);
  await expect(page.getByRole("row", { name: new RegExp(email) })).toBeVisible();
}

test("creating a user explains bad fields, then the new user signs in with their role", async ({
  page,
  browser,
  baseURL,
}) => {
  await page.goto("/admin/users");
  await hydrated(page);
  const form = page.getByRole("form", { name: "Create user" });
  await form.getByLabel("Email").fill("not an email");
  await form.getByLabel("Initial password").fill("short");
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(form.getByText("Enter an email address like name@example.com.")).toBeVisible();
  await expect(form.getByText("At least 10 characters.")).toBeVisible();
  await expect(form.getByLabel("Email")).toHaveValue("not an email");

  const email = `new-${randomBytes(3).toString("hex")}@verity.local`;
  await createUser(page, email, "annotator", "first password 1");
  // the same email twice is refused on the email field
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Initial password").fill("first password 1");
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(form.getByText("A user with this email already exists.").first()).toBeVisible();

  const ctx = await browser.newContext({ baseURL, ...SIGNED_OUT });
  const them = await ctx.newPage();
  await signIn(them, email, "first password 1");
  await expect(them).toHaveURL(/\/queue$/);
  await ctx.close();
});

test("re-roling, disabling and resetting a password take effect at once", async ({ page, browser, baseURL }) => {
  const email = `changes-${randomBytes(3).toString("hex")}@verity.local`;
  await createUser(page, email, "researcher", "first password 1");
  const ctx = await browser.newContext({ baseURL, ...SIGNED_OUT });
  const them = await ctx.newPage();
  await signIn(them, email, "first password 1");
  await expect(
    them.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Trajectories" }),
  ).toBeVisible();

  const row = page.getByRole("row", { name: new RegExp(email) });
  await row.getByLabel(`Role of ${email}`, { exact: true }).selectOption("annotator");
  await row.getByRole("button", { name: "Save role" }).click();
  await expect(row.getByRole("status")).toHaveText("Role set to annotator.");
  await them.goto("/trajectories");
  await expect(them.getByRole("heading", { level: 1, name: "403 · Not allowed" })).toBeVisible();
  await expect(them.getByRole("navigation", { name: "Main" }).getByRole("link")).toHaveText(["Queue"]);

  await row.getByRole("button", { name: "Disable" }).click();
  await expect(row.getByText("disabled", { exact: true })).toBeVisible();
  await them.goto("/queue");
  await expect(them).toHaveURL(/\/sign-in/);
  const form = new SignInPage(them);
  await form.submitWith(email, "first password 1");
  await expect(form.alert()).toHaveText("This account is disabled. Ask an admin to enable it.");

  await row.getByRole("button", { name: "Enable" }).click();
  await expect(row.getByText("active", { exact: true })).toBeVisible();
  await row.getByText("Reset password").click();
  await row.getByLabel(`New password for ${email}`).fill("second password 2");
  await row.getByRole("button", { name: "Set password" }).click();
  await expect(row.getByRole("status").filter({ hasText: "Password reset" })).toBeVisible();
  await form.goto();
  await form.submitWith(email, "first password 1");
  await expect(form.alert()).toHaveText("Email or password is wrong.");
  await form.submitWith(email, "second password 2");
  await expect(them).toHaveURL(/\/queue$/);
  await ctx.close();

  await page.goto(`/admin/activity-log?${new URLSearchParams({ actor: "admin@verity.local" })}`);
  for (const action of ["user.create", "user.role_change", "user.disable", "user.enable", "user.password_reset"]) {
    await expect(page.getByRole("row").filter({ hasText: email }).filter({ hasText: action }).first()).toBeVisible();
  }
});

test("an API token is shown once, works with whoami, records its last use, and is refused once revoked", async ({
  page,
  request,
}) => {
  const name = `pipeline ${randomBytes(3).toString("hex")}`;
  await page.goto("/admin/tokens");
  await hydrated(page);
  const form = page.getByRole("form", { name: "Create API token" });
  await form.getByRole("checkbox", { name: /ingest/ }).uncheck();
  await form.getByRole("button", { name: "Create token" }).click();
  await expect(form.getByText("Name the token")).toBeVisible();
  await expect(form.getByText("Pick at least one scope.")).toBeVisible();

  await form.getByLabel("Token name").fill(name);
  await form.getByRole("checkbox", { name: /read/ }).check();
  await form.getByRole("button", { name: "Create token" }).click();
  const token = await page.getByLabel("New token").inputValue();
  expect(token).toMatch(/^vty_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
  const row = page.getByRole("row", { name: new RegExp(name) });
  await expect(row).toContainText("read");
  await expect(row).toContainText("never");
  await expect(row).not.toContainText(token.slice(13));

  const ok = await request.get("/api/v1/whoami", { headers: { authorization: `Bearer ${token}` } });
  expect(ok.status()).toBe(200);
  expect((await ok.json()).token).toMatchObject({ name, scopes: ["read"] });

  await page.reload();
  await hydrated(page);
  await expect(page.getByLabel("New token")).toHaveCount(0); // shown once
  await expect(row).not.toContainText("never");
  await expect(row).toContainText("UTC");

  await row.getByRole("button", { name: "Revoke" }).click();
  await expect(row.getByText("revoked")).toBeVisible();
  const refused = await request.get("/api/v1/whoami", { headers: { authorization: `Bearer ${token}` } });
  expect(refused.status()).toBe(401);
  expect(await refused.json()).toEqual({
    error: { code: "invalid_token", message: "This API token has been revoked." },
  });
  const missing = await request.get("/api/v1/whoami");
  expect(missing.status()).toBe(401);
  expect((await missing.json()).error.code).toBe("unauthenticated");
});

test("the activity log filters by action, actor and date and pages by key", async ({ page }) => {
  await page.goto("/admin/activity-log");
  await page.getByLabel("Action").fill("auth.sign_in");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/action=auth.sign_in/);
  const rows = page.locator("tbody tr");
  await expect(rows.first()).toBeVisible();
  for (const text of await rows.allInnerTexts()) expect(text).toContain("auth.sign_in");

  await page.getByLabel("Actor").fill("admin@verity.local");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/actor=admin%40verity.local/);
  await expect(rows.first()).toContainText("admin@verity.local");
  for (const text of await rows.allInnerTexts()) expect(text).toMatch(/admin@verity\.local.*auth\.sign_in/s);

  await page.goto("/admin/activity-log?to=2000-01-01");
  await expect(page.getByText("No entries match")).toBeVisible();
  await page.goto("/admin/activity-log?from=not-a-date");
  await expect(page.getByText("This link has a bad filter")).toBeVisible();

  // the page's old address (before "audit" meant only the shadow audit) lands here with its filters
  await page.goto("/admin/audit-log?to=2000-01-01");
  await expect(page).toHaveURL(/\/admin\/activity-log\?to=2000-01-01$/);
  await expect(page.getByRole("heading", { name: "Activity log" })).toBeVisible();
});

test("disabling or demoting a token's owner names the token, which stops or narrows at once", async ({
  page,
  browser,
  baseURL,
  request,
}) => {
  const email = `owner-${randomBytes(3).toString("hex")}@verity.local`;
  await createUser(page, email, "admin", "owner password 1");
  const ctx = await browser.newContext({ baseURL, ...SIGNED_OUT });
  const them = await ctx.newPage();
  await signIn(them, email, "owner password 1");
  const name = `launcher ${randomBytes(3).toString("hex")}`;
  await them.goto("/admin/tokens");
  await hydrated(them);
  const form = them.getByRole("form", { name: "Create API token" });
  await form.getByLabel("Token name").fill(name);
  await form.getByRole("checkbox", { name: /ingest/ }).check();
  await form.getByRole("checkbox", { name: /read/ }).check();
  await form.getByRole("button", { name: "Create token" }).click();
  const token = await them.getByLabel("New token").inputValue();
  await ctx.close();
  const prefix = token.slice(4, 12);
  const whoami = () => request.get("/api/v1/whoami", { headers: { authorization: `Bearer ${token}` } });
  expect((await (await whoami()).json()).token.active_scopes).toEqual(["ingest", "read"]);

  await page.goto("/admin/users");
  await hydrated(page);
  const row = page.getByRole("row", { name: new RegExp(email) });
  await expect(row).toContainText(`“${name}” (vty_${prefix}_…)`);
  await row.getByLabel(`Role of ${email}`, { exact: true }).selectOption("researcher");
  await row.getByRole("button", { name: "Save role" }).click();
  await expect(row.getByRole("status")).toHaveText(
    `Role set to researcher. API token affected: “${name}” (vty_${prefix}_…) ingest, read → read.`,
  );
  expect((await (await whoami()).json()).token.active_scopes).toEqual(["read"]);
  const ingest = await request.post("/api/v1/ingest", { headers: { authorization: `Bearer ${token}` }, data: "" });
  expect(ingest.status()).toBe(403);
  expect((await ingest.json()).error.code).toBe("owner_not_allowed");

  await row.getByRole("button", { name: "Disable" }).click();
  await expect(row.getByRole("status").filter({ hasText: "Disabled." })).toHaveText(
    `Disabled. API token affected: “${name}” (vty_${prefix}_…) read → none, inactive.`,
  );
  expect((await whoami()).status()).toBe(401);

  await page.goto("/admin/tokens");
  await expect(page.getByRole("row", { name: new RegExp(name) })).toContainText(`inactive: owner ${email} is disabled`);
  await page.goto(`/admin/activity-log?${new URLSearchParams({ action: "user.disable" })}`);
  await expect(page.getByRole("row").filter({ hasText: email }).filter({ hasText: prefix }).first()).toBeVisible();
});
