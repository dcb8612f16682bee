// What a client talking to the console directly (no proxy, VERITY_TRUSTED_PROXIES unset, as under `npm start`) can
// claim about itself: neither its address (for the sign-in limit and the activity log) by writing X-Forwarded-For, nor
// a server action's origin.
import pg from "pg";
import { DEMO_USERS, expect, SignInPage, test } from "./fixtures/auth.ts";

/** The address the activity log recorded for the latest sign-in of `email`. */
async function lastSignInAddress(email: string): Promise<string | undefined> {
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  try {
    const r = await c.query<{ ip: string }>(
      "select details->>'ip' as ip from activity_log where action = 'auth.sign_in' and actor_label = $1 order by id desc limit 1",
      [email],
    );
    return r.rows[0]?.ip;
  } finally {
    await c.end();
  }
}

test.describe("a client's claims about itself", () => {
  test("its own X-Forwarded-For does not change the address the console records", async ({ browser }) => {
    const context = await browser.newContext({
      extraHTTPHeaders: { "X-Forwarded-For": "203.0.113.77", "X-Forwarded-Host": "evil.example" },
    });
    const page = await context.newPage();
    await new SignInPage(page).signIn(DEMO_USERS.lead);
    // Playwright's Chromium connects over loopback: that is the address, not the one it wrote
    expect(await lastSignInAddress(DEMO_USERS.lead)).toBe("127.0.0.1");
    await context.close();
  });

  test("a server action posted from another origin is refused with 403, not a server error", async ({ request }) => {
    const form = { "1_$ACTION_ID_0": "", "1_email": "lead@verity.local", "1_password": "x" };
    for (const origin of ["http://evil.example", "null"]) {
      const res = await request.post("/sign-in", {
        headers: { origin, "next-action": "0".repeat(42), accept: "text/x-component" },
        multipart: form,
        maxRedirects: 0,
      });
      expect(res.status(), origin).toBe(403);
      expect(await res.text()).toBe("Cross-origin request refused.");
    }
    // the same post from the console's own origin is not refused as cross-origin
    const base = new URL(test.info().project.use.baseURL ?? "http://localhost:3000");
    const same = await request.post("/sign-in", {
      headers: { origin: base.origin, "next-action": "0".repeat(42), accept: "text/x-component" },
      multipart: form,
      maxRedirects: 0,
    });
    expect(same.status()).not.toBe(403);
  });
});
