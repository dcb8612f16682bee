// The console with a read replica, through HTTP and Chromium: a second console on the same build, over a
// PostgreSQL 15 primary and hot standby this spec starts (lib/testing/standby-pair.ts, on ports the system
// chose). Rollouts ingested through the console's API land on the primary and show on the trajectory pages once the
// standby has replayed them; a paused standby is named as behind; a stopped one costs no page.
import fs from "node:fs";
import path from "node:path";
import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { expect, SignInPage, test } from "./fixtures/auth.ts";
import { hashPassword } from "../lib/auth/password.ts";
import { freePort, startConsole, type ConsoleProcess } from "../lib/testing/console-process.ts";
import { startStandbyPair, type StandbyPair } from "../lib/testing/standby-pair.ts";

test.describe.configure({ mode: "serial", timeout: 120_000 });

const EMAIL = "replica-reader@verity.local";
const PASSWORD = "replica-reader-password";

let pair: StandbyPair;
let verity: ConsoleProcess;
let ingestToken: string;

type Obj = Record<string, unknown>;

/** Example 01 (a refund ticket) as a case and `n` rollouts of `run`, one per step. */
function runLines(run: string, n: number): string {
  const ex = JSON.parse(fs.readFileSync(path.resolve("lib/verifier/examples/01-refund-correct.json"), "utf8")) as Obj;
  const ticket = `T-${run}`;
  const c = structuredClone(ex.case) as Obj;
  (c.ticket as Obj).id = ticket;
  const lines: Obj[] = [c];
  for (let i = 0; i < n; i++) {
    const r = structuredClone(ex);
    delete r.case;
    lines.push({
      ...r,
      trajectory_id: `${run}/${i}`,
      run_id: run,
      step: i + 1,
      group_id: `${run}/${i}`,
      ticket_id: ticket,
    });
  }
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

async function onStandby(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: pair.standbyUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

async function ingest(run: string, n: number) {
  const res = await fetch(`${verity.origin}/api/v1/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${ingestToken}`, "content-type": "application/x-ndjson" },
    body: runLines(run, n),
  });
  expect(res.status).toBe(200);
  const lines = (await res.text()).trim().split("\n");
  expect(JSON.parse(lines[lines.length - 1])).toMatchObject({ ok: true, rejected: 0 });
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  pair = await startStandbyPair("verity_replica_e2e");
  const c = new pg.Client({ connectionString: pair.primaryUrl });
  await c.connect();
  try {
    await c.query("insert into users (email, role, password_hash) values ($1, 'researcher', $2) returning id", [
      EMAIL,
      await hashPassword(PASSWORD),
    ]);
    // A token may do what its owner's role may: the ingest token belongs to an admin, the pages are read by a researcher.
    const owner = await c.query<{ id: number }>(
      "insert into users (email, role, password_hash) values ('replica-ingest@verity.local', 'admin', $1) returning id",
      [await hashPassword(randomBytes(18).toString("base64url"))],
    );
    const prefix = randomBytes(4).toString("hex");
    ingestToken = `vty_${prefix}_${randomBytes(32).toString("base64url")}`;
    await c.query(
      "insert into api_tokens (name, prefix, hash, scopes, created_by_id) values ('replica ingest', $1, $2, $3, $4)",
      [prefix, createHash("sha256").update(ingestToken).digest("hex"), ["ingest"], owner.rows[0].id],
    );
  } finally {
    await c.end();
  }
  verity = await startConsole(await freePort(), {
    DATABASE_URL: pair.primaryUrl,
    DATABASE_REPLICA_URL: pair.standbyUrl,
    VERITY_REPLICA_MAX_LAG: "1",
    VERITY_DEMO: "0",
  });
});

test.afterAll(async () => {
  await verity?.stop();
  await pair?.stop();
});

test("rollouts ingested on the primary show on the replica's pages once replayed; a paused standby is named as behind", async ({
  browser,
}) => {
  const context = await browser.newContext({ baseURL: verity.origin, storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await new SignInPage(page).signIn(EMAIL, PASSWORD);

  await ingest("rep-e2e", 3);
  await expect(async () => {
    await page.goto("/trajectories?run=rep-e2e");
    await expect(page.getByTestId("match-count")).toHaveText("3 matching", { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await expect(page.getByTestId("replica-lag")).toHaveCount(0);

  await onStandby("select pg_wal_replay_pause()");
  try {
    await ingest("rep-held", 2);
    // On the primary already, not on the standby the page reads: nothing matches, and the banner says why.
    await expect(async () => {
      await page.goto("/trajectories?run=rep-held");
      await expect(page.getByTestId("replica-lag")).toContainText("behind the primary", { timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    await expect(page.getByText("Nothing matches these filters")).toBeVisible();
    const health = (await (await fetch(`${verity.origin}/api/health`)).json()) as { replica: Obj };
    expect(health.replica).toMatchObject({ reachable: true, ok: false, maxLagSeconds: 1 });
    expect(health.replica.lagSeconds as number).toBeGreaterThan(1);
  } finally {
    await onStandby("select pg_wal_replay_resume()");
  }
  await expect(async () => {
    await page.goto("/trajectories?run=rep-held");
    await expect(page.getByTestId("match-count")).toHaveText("2 matching", { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await context.close();
});

test("with the standby stopped, the pages still load, from the primary", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: verity.origin, storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await new SignInPage(page).signIn(EMAIL, PASSWORD);
  await pair.stopStandby();
  try {
    await page.goto("/trajectories?run=rep-e2e");
    await expect(page.getByTestId("match-count")).toHaveText("3 matching");
    await page.goto("/trajectories/rep-e2e%2F1");
    await expect(page.getByRole("heading", { name: "rep-e2e/1" })).toBeVisible();
    const runs = await page.goto("/runs");
    expect(runs?.status()).toBe(200);
    await expect(page.getByRole("link", { name: "rep-held" })).toBeVisible();
    const res = await fetch(`${verity.origin}/api/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, replica: { reachable: false, ok: false, lagSeconds: null } });
  } finally {
    await pair.startStandby();
  }
  await context.close();
});
