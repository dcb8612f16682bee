// OIDC sign-in end to end against a local provider: the start route's redirect, the provider's authorization
// endpoint, then the callback route handler with the flow cookie, on the real database. The routes are imported
// afresh after the OIDC variables are set, because the environment is read once per module graph.
import { randomBytes } from "node:crypto";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createUser, setUserDisabled } from "@/lib/admin/mutations.ts";
import { findSessionUser } from "@/lib/auth/data.ts";
import { OIDC_COOKIE } from "@/lib/auth/oidc-cookie.ts";
import { oidcErrorMessage } from "@/lib/auth/oidc.ts";
import { startTestOidcProvider, type IdTokenTamper, type TestOidcProvider } from "@/lib/testing/oidc-provider.ts";
import { SESSION_COOKIE } from "@/lib/auth/session.ts";
import { sha256Hex } from "@/lib/auth/tokens.ts";
import { db } from "@/lib/db/client.ts";

type Handler = (req: NextRequest) => Promise<Response>;
const CONSOLE = "http://console.test";
const OIDC_VARS = [
  "VERITY_OIDC_ISSUER",
  "VERITY_OIDC_CLIENT_ID",
  "VERITY_OIDC_CLIENT_SECRET",
  "VERITY_OIDC_REDIRECT_URI",
  "VERITY_PUBLIC_URL",
  "VERITY_TRUSTED_PROXIES",
] as const;

async function importRoutes(): Promise<{ start: Handler; callback: Handler }> {
  vi.resetModules();
  const start = await import("@/app/(auth)/auth/oidc/route.ts");
  const callback = await import("@/app/(auth)/auth/oidc/callback/route.ts");
  return { start: start.GET, callback: callback.GET };
}

const saved = Object.fromEntries(OIDC_VARS.map((k) => [k, process.env[k]]));
let provider: TestOidcProvider;
let routes: { start: Handler; callback: Handler };

function configure(issuer: string) {
  process.env.VERITY_OIDC_ISSUER = issuer;
  process.env.VERITY_OIDC_CLIENT_ID = provider.clientId;
  process.env.VERITY_OIDC_CLIENT_SECRET = provider.clientSecret;
  delete process.env.VERITY_OIDC_REDIRECT_URI;
  delete process.env.VERITY_PUBLIC_URL;
  delete process.env.VERITY_TRUSTED_PROXIES;
}

beforeAll(async () => {
  provider = await startTestOidcProvider();
  configure(provider.issuer);
  routes = await importRoutes();
});

afterAll(async () => {
  for (const k of OIDC_VARS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await provider?.close();
});

const email = () => `sso-${randomBytes(5).toString("hex")}@test.local`;
const address = () => `198.51.${randomBytes(2).join(".")}`;

async function newUser(address: string) {
  const r = await createUser(
    { email: address, name: "", role: "researcher", password: "a long enough password" },
    { label: "test" },
  );
  if (!r.ok) throw new Error(r.error);
  return r.id;
}

/** Browser steps up to the callback: start, follow the provider's redirect; returns the callback URL and the flow cookie. */
async function toCallback(next?: string): Promise<{ callbackUrl: string; flowCookie: string }> {
  const res = await routes.start(
    new NextRequest(`${CONSOLE}/auth/oidc${next ? `?next=${encodeURIComponent(next)}` : ""}`),
  );
  expect(res.status).toBe(303);
  const authorize = res.headers.get("location")!;
  expect(authorize.startsWith(`${provider.issuer}/authorize?`)).toBe(true);
  const flowCookie = (res as unknown as { cookies: { get(n: string): { value: string } | undefined } }).cookies.get(
    OIDC_COOKIE,
  )?.value;
  expect(flowCookie).toBeTruthy();
  const back = await fetch(authorize, { redirect: "manual" });
  expect(back.status).toBe(302);
  const callbackUrl = back.headers.get("location")!;
  expect(callbackUrl.startsWith(`${CONSOLE}/auth/oidc/callback?`)).toBe(true);
  return { callbackUrl, flowCookie: flowCookie! };
}

function callback(url: string, flowCookie: string | null, ip: string) {
  const headers: Record<string, string> = { "x-forwarded-for": ip };
  if (flowCookie !== null) headers.cookie = `${OIDC_COOKIE}=${flowCookie}`;
  return routes.callback(new NextRequest(url, { headers }));
}

function sessionToken(res: Response): string | undefined {
  const line = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  return line?.slice(SESSION_COOKIE.length + 1).split(";")[0] || undefined;
}

/** The sign-in page's answer for a refused callback: the error code it was sent, and the message that code shows. */
function refusal(res: Response): { code: string; message: string | undefined } {
  expect(res.status).toBe(303);
  const to = new URL(res.headers.get("location")!);
  expect(to.pathname).toBe("/sign-in");
  const code = to.searchParams.get("error") ?? "";
  expect(sessionToken(res)).toBeUndefined();
  return { code, message: oidcErrorMessage(code) };
}

const failuresFrom = (ip: string) =>
  db().activityLog.findMany({
    where: { action: "auth.sign_in_failed", details: { path: ["ip"], equals: ip } },
    orderBy: { id: "asc" },
  });

describe("OIDC sign-in", () => {
  it("is off while the OIDC variables are unset", async () => {
    for (const k of OIDC_VARS) delete process.env[k];
    const off = await importRoutes();
    for (const handler of [off.start, off.callback]) {
      const res = await handler(new NextRequest(`${CONSOLE}/auth/oidc/callback?code=x&state=y`));
      expect(res.status).toBe(404);
      expect(await res.text()).toBe("Single sign-on is not configured.");
    }
    configure(provider.issuer);
  });

  it("signs a known email in with a session cookie, returns to the page asked for, and logs it", async () => {
    const who = email();
    const id = await newUser(who);
    const ip = address();
    provider.signInAs(who.toUpperCase());
    const { callbackUrl, flowCookie } = await toCallback("/runs?x=1");
    const res = await callback(callbackUrl, flowCookie, ip);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${CONSOLE}/runs?x=1`);
    const token = sessionToken(res);
    expect(token).toMatch(/^\S{20,}$/);
    const cookieLine = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    expect(cookieLine).toMatch(/HttpOnly/i);
    expect(cookieLine).toMatch(/SameSite=lax/i);
    // the flow cookie is spent
    expect(res.headers.getSetCookie().some((c) => c.startsWith(`${OIDC_COOKIE}=;`))).toBe(true);
    expect(await findSessionUser(sha256Hex(token!))).toMatchObject({ id, email: who, role: "researcher" });
    const log = await db().activityLog.findMany({ where: { action: "auth.sign_in", targetId: String(id) } });
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ actorId: id, actorLabel: who, details: { method: "oidc", ip } });
    expect(provider.refusals).toEqual([]);
  });

  it("refuses the same authorization response a second time (the code is spent)", async () => {
    const who = email();
    await newUser(who);
    provider.signInAs(who);
    const { callbackUrl, flowCookie } = await toCallback();
    expect(sessionToken(await callback(callbackUrl, flowCookie, address()))).toBeTruthy();
    const ip = address();
    const again = refusal(await callback(callbackUrl, flowCookie, ip));
    expect(again.code).toBe("sso_state");
    expect(provider.refusals.at(-1)).toBe("unknown or spent code");
    expect((await failuresFrom(ip)).map((e) => e.details)).toEqual([
      { reason: "sso_state", detail: "the token endpoint answered invalid_grant", method: "oidc", ip },
    ]);
  });

  it("refuses an email no user has, and a disabled user, saying which, and logs both with the email", async () => {
    const stranger = email();
    provider.signInAs(stranger);
    let flow = await toCallback();
    let ip = address();
    expect(refusal(await callback(flow.callbackUrl, flow.flowCookie, ip))).toEqual({
      code: "sso_no_account",
      message: "No Verity account has the email your identity provider gave. Ask an admin to create one.",
    });
    expect(await failuresFrom(ip)).toMatchObject([
      { actorLabel: stranger, details: { reason: "unknown_email", method: "oidc", ip } },
    ]);

    const who = email();
    const id = await newUser(who);
    await setUserDisabled(id, true, { label: "test" });
    provider.signInAs(who);
    flow = await toCallback();
    ip = address();
    expect(refusal(await callback(flow.callbackUrl, flow.flowCookie, ip))).toEqual({
      code: "sso_disabled",
      message: "The Verity account with the email your identity provider gave is disabled. Ask an admin to enable it.",
    });
    expect(await failuresFrom(ip)).toMatchObject([
      { actorLabel: who, targetId: String(id), details: { reason: "disabled", method: "oidc", ip } },
    ]);
    expect(await db().session.count({ where: { userId: id } })).toBe(0);
  });

  it("refuses an email the provider has not verified, saying so", async () => {
    const who = email();
    await newUser(who);
    provider.signInAs(who, { emailVerified: false });
    const flow = await toCallback();
    const ip = address();
    expect(refusal(await callback(flow.callbackUrl, flow.flowCookie, ip))).toEqual({
      code: "sso_email_unverified",
      message: "The identity provider has not verified your email address. Verify it there, then sign in again.",
    });
    expect(await failuresFrom(ip)).toMatchObject([
      {
        actorLabel: "oidc",
        details: { reason: "sso_email_unverified", detail: "the identity provider has not verified this email" },
      },
    ]);
  });

  it("asks the UserInfo endpoint for the email when the ID token has none (OIDC Core 5.4)", async () => {
    const who = email();
    const id = await newUser(who);
    provider.signInAs(who, { emailIn: "userinfo" });
    const flow = await toCallback();
    const res = await callback(flow.callbackUrl, flow.flowCookie, address());
    expect(res.status).toBe(303);
    expect(await findSessionUser(sha256Hex(sessionToken(res)!))).toMatchObject({ id, email: who });
    // an unverified email from UserInfo is refused like one in the ID token
    provider.signInAs(who, { emailIn: "userinfo", emailVerified: false });
    const unverified = await toCallback();
    expect(refusal(await callback(unverified.callbackUrl, unverified.flowCookie, address())).code).toBe(
      "sso_email_unverified",
    );
  });

  it("refuses a sign-in that gives no email anywhere, with its own reason", async () => {
    const who = email();
    await newUser(who);
    provider.signInAs(who, { emailIn: "nowhere" });
    const flow = await toCallback();
    const ip = address();
    expect(refusal(await callback(flow.callbackUrl, flow.flowCookie, ip))).toEqual({
      code: "sso_no_email",
      message:
        "The identity provider did not tell Verity your email address. Ask an admin to let Verity read it (the email scope).",
    });
    expect(await failuresFrom(ip)).toMatchObject([
      { actorLabel: "oidc", details: { reason: "sso_no_email", method: "oidc", ip } },
    ]);
  });

  it("refuses a state that is not the flow's, and a callback without the flow cookie, before asking the provider", async () => {
    const who = email();
    await newUser(who);
    provider.signInAs(who);
    const flow = await toCallback();
    const forged = new URL(flow.callbackUrl);
    forged.searchParams.set("state", "x".repeat(43));
    const ip = address();
    expect(refusal(await callback(forged.toString(), flow.flowCookie, ip))).toEqual({
      code: "sso_state",
      message: "Single sign-on did not complete (the sign-in link expired or was used twice). Try again.",
    });
    expect(refusal(await callback(flow.callbackUrl, null, ip)).code).toBe("sso_state");
    expect((await failuresFrom(ip)).map((e) => (e.details as { detail: string }).detail)).toEqual([
      "the state does not match the sign-in flow",
      "no sign-in flow cookie (expired, or another browser)",
    ]);
    // the untouched response still works: nothing above spent the code
    expect(sessionToken(await callback(flow.callbackUrl, flow.flowCookie, address()))).toBeTruthy();
  });

  it.each<[string, IdTokenTamper, RegExp]>([
    ["another flow's nonce", "nonce", /nonce/],
    ["a signature by another key", "signature", /signature/i],
    ["no signature (alg none)", "unsigned", /alg/],
    ["another audience", "audience", /aud/],
    ["another issuer", "issuer", /iss/],
    ["an expiry in the past", "expired", /exp/],
  ])("refuses an ID token with %s and logs why", async (_label, how, why) => {
    const who = email();
    const id = await newUser(who);
    provider.signInAs(who);
    const flow = await toCallback();
    provider.tamper(how);
    const ip = address();
    expect(refusal(await callback(flow.callbackUrl, flow.flowCookie, ip))).toEqual({
      code: "sso_token",
      message: "The identity provider's answer could not be verified. Try again or ask an admin.",
    });
    const logged = await failuresFrom(ip);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ actorLabel: "oidc", details: { reason: "sso_token", method: "oidc", ip } });
    expect((logged[0].details as { detail: string }).detail).toMatch(why);
    expect(await db().session.count({ where: { userId: id } })).toBe(0);
  });

  it("answers a provider unreachable at sign-in start with the sign-in page and an activity-log entry", async () => {
    const down = await startTestOidcProvider();
    configure(down.issuer);
    const flaky = await importRoutes();
    // discovered once while it was up: the start must not send the browser on to it from memory once it is down
    expect((await flaky.start(new NextRequest(`${CONSOLE}/auth/oidc`))).status).toBe(303);
    await down.close();
    const ip = address();
    const res = await flaky.start(new NextRequest(`${CONSOLE}/auth/oidc`, { headers: { "x-forwarded-for": ip } }));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${CONSOLE}/sign-in?error=sso_unavailable`);
    expect(oidcErrorMessage("sso_unavailable")).toBe(
      "The identity provider could not be reached. Try again later or sign in with your password.",
    );
    const logged = await failuresFrom(ip);
    expect(logged).toMatchObject([{ actorLabel: "oidc", details: { reason: "sso_unavailable", method: "oidc", ip } }]);
    expect((logged[0].details as { detail: string }).detail).toMatch(/^discovery failed: /);
    configure(provider.issuer);
  });
});

describe("OIDC addresses: built from the console's public origin, not the server's own name", () => {
  /** Start and callback as `next start` hands them over: req.url on localhost:3400 whatever the browser asked for. */
  const OWN = "http://localhost:3400";

  async function signInThrough(headers: Record<string, string>) {
    const r = await importRoutes();
    const who = email();
    await newUser(who);
    provider.signInAs(who);
    const start = await r.start(new NextRequest(`${OWN}/auth/oidc?next=%2Fruns`, { headers }));
    expect(start.status).toBe(303);
    const authorize = new URL(start.headers.get("location")!);
    const flowCookie = (start as unknown as { cookies: { get(n: string): { value: string } | undefined } }).cookies.get(
      OIDC_COOKIE,
    )!.value;
    const back = await fetch(authorize, { redirect: "manual" });
    const callbackUrl = new URL(back.headers.get("location")!);
    const res = await r.callback(
      new NextRequest(`${OWN}${callbackUrl.pathname}${callbackUrl.search}`, {
        headers: { ...headers, cookie: `${OIDC_COOKIE}=${flowCookie}` },
      }),
    );
    return { redirectUri: authorize.searchParams.get("redirect_uri"), res };
  }

  it("uses the Host the browser sent (the console opened at 127.0.0.1)", async () => {
    configure(provider.issuer);
    const { redirectUri, res } = await signInThrough({ host: "127.0.0.1:3400", "x-forwarded-for": "127.0.0.1" });
    expect(redirectUri).toBe("http://127.0.0.1:3400/auth/oidc/callback");
    expect(res.headers.get("location")).toBe("http://127.0.0.1:3400/runs");
    expect(sessionToken(res)).toBeTruthy();
    expect(provider.refusals.at(-1) ?? "").not.toBe("redirect_uri differs");
  });

  it("uses VERITY_PUBLIC_URL when set", async () => {
    configure(provider.issuer);
    process.env.VERITY_PUBLIC_URL = "https://verity.example.org";
    const { redirectUri, res } = await signInThrough({ host: "127.0.0.1:3400", "x-forwarded-for": "127.0.0.1" });
    expect(redirectUri).toBe("https://verity.example.org/auth/oidc/callback");
    expect(res.headers.get("location")).toBe("https://verity.example.org/runs");
    expect(res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))).toMatch(/Secure/i);
    configure(provider.issuer);
  });

  it("uses a trusted proxy's X-Forwarded-Host and -Proto, and ignores them from anyone else", async () => {
    configure(provider.issuer);
    process.env.VERITY_TRUSTED_PROXIES = "10.0.0.0/8";
    const forwarded = { host: "10.0.0.5:3400", "x-forwarded-host": "verity.example.com", "x-forwarded-proto": "https" };
    const viaProxy = await signInThrough({ ...forwarded, "x-forwarded-for": "203.0.113.5, 10.0.0.2" });
    expect(viaProxy.redirectUri).toBe("https://verity.example.com/auth/oidc/callback");
    expect(viaProxy.res.headers.get("location")).toBe("https://verity.example.com/runs");
    const direct = await signInThrough({ ...forwarded, "x-forwarded-for": "203.0.113.5" });
    expect(direct.redirectUri).toBe("http://10.0.0.5:3400/auth/oidc/callback");
    expect(direct.res.headers.get("location")).toBe("http://10.0.0.5:3400/runs");
    configure(provider.issuer);
  });
});
