// Single sign-on against a real OpenID provider (`oidc-provider`, with its own login and consent pages and its
// defaults: the email only in the UserInfo response), with the console opened at http://127.0.0.1:<port> — not
// localhost, the server's own name. OIDC is on only in a second console this spec starts on the same build and
// database, so the shared console and the other specs keep it off.
import pg from "pg";
import { DEMO_USERS, expect, test } from "./fixtures/auth.ts";
import { startCertifiedOidcProvider, type CertifiedOidcProvider } from "../lib/testing/certified-oidc-provider.ts";
import { freePort, startConsole, type ConsoleProcess } from "../lib/testing/console-process.ts";

test.describe.configure({ mode: "serial", timeout: 120_000 });

let provider: CertifiedOidcProvider;
let verity: ConsoleProcess;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const port = await freePort();
  provider = await startCertifiedOidcProvider({ redirectUris: [`http://127.0.0.1:${port}/auth/oidc/callback`] });
  verity = await startConsole(port, {
    VERITY_OIDC_ISSUER: provider.issuer,
    VERITY_OIDC_CLIENT_ID: provider.clientId,
    VERITY_OIDC_CLIENT_SECRET: provider.clientSecret,
  });
});

test.afterAll(async () => {
  await verity?.stop();
  await provider?.close();
});

/** The latest activity-log refusal of a single sign-on, straight from the database. */
async function lastSsoRefusal(): Promise<{ reason: string; detail: string } | undefined> {
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  try {
    const r = await c.query<{ details: { reason: string; detail: string } }>(
      "select details from activity_log where action = 'auth.sign_in_failed' and actor_label = 'oidc' order by id desc limit 1",
    );
    return r.rows[0]?.details;
  } finally {
    await c.end();
  }
}

test("signs in through the provider's own pages and lands signed in on the address it was opened at", async ({
  browser,
}) => {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  // the provider's pages import a web font; this machine has no way out, so do not wait for it
  await context.route(/^https:\/\/fonts\./, (r) => r.abort());
  const page = await context.newPage();
  await page.goto(`${verity.origin}/sign-in?next=%2Fruns`);
  await page.getByRole("link", { name: "Sign in with single sign-on" }).click();
  await page.waitForURL((u) => u.origin === provider.issuer);
  await page.locator('input[name="login"]').fill(DEMO_USERS.researcher);
  await page.locator('input[name="password"]').fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL(`${verity.origin}/runs`);
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  await context.close();
});

test("a provider that is down when sign-in starts gets the console's sign-in page and an activity-log entry", async ({
  browser,
}) => {
  await provider.close();
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto(`${verity.origin}/sign-in`);
  await page.getByRole("link", { name: "Sign in with single sign-on" }).click();
  await page.waitForURL(`${verity.origin}/sign-in?error=sso_unavailable`);
  await expect(
    page.getByText("The identity provider could not be reached. Try again later or sign in with your password."),
  ).toBeVisible();
  expect(await lastSsoRefusal()).toMatchObject({ reason: "sso_unavailable", detail: /^discovery failed: / });
  await context.close();
});
