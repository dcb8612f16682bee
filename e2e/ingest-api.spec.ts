// POST /api/v1/ingest with a body far larger than the 10 MB that Next's proxy would buffer and cut: the whole body
// must reach the handler and be counted. The bulk of it is the verifier examples (run grpo-demo, loaded with the demo
// data) sent again, so it comes back `unchanged` and leaves the demo data as it is; a new case first and last proves
// both ends of the body were read and committed.
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { expect, test } from "./fixtures/auth.ts";
import { EXAMPLE_TRAINED_REWARDS } from "../lib/demo/example-trained-rewards.ts";
import { createApiTokens } from "./fixtures/samples.ts";

// Ingesting ~3,500 lines on a loaded CI machine takes longer than the default 30 s.
test.describe.configure({ timeout: 240_000 });

const EXAMPLES_DIR = path.resolve("lib/verifier/examples");
const MIN_BODY_BYTES = 12 * 1024 * 1024;

type Obj = Record<string, unknown>;

function examples(): Obj[] {
  return fs
    .readdirSync(EXAMPLES_DIR)
    .filter((f) => /^\d\d-.+\.json$/.test(f) && !f.endsWith(".expected.json"))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, f), "utf8")) as Obj)
    .map((e) => {
      // as the demo loaded them, so that sending them again is a no-op
      const trained = EXAMPLE_TRAINED_REWARDS[String(e.trajectory_id)];
      return trained === undefined ? e : { ...e, trained_reward: trained };
    });
}

/** Example 01's case under a fresh ticket id: a line the ledger has never seen. */
function freshCase(example: Obj, ticketId: string): Obj {
  const c = structuredClone(example.case) as Obj;
  (c.ticket as Obj).id = ticketId;
  return c;
}

async function storedCases(ticketIds: string[]): Promise<string[]> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: run the e2e tests through `npm test -- e2e`.");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ ticket_id: string }>(
      "select ticket_id from cases where ticket_id = any($1) order by ticket_id",
      [ticketIds],
    );
    return r.rows.map((row) => row.ticket_id);
  } finally {
    await c.end();
  }
}

test("a body over 12 MB is read to its last line and every line is counted", async ({ request }) => {
  const { ingest } = await createApiTokens();
  const headers = { authorization: `Bearer ${ingest}`, "content-type": "application/x-ndjson" };
  const rollouts = examples();
  expect(rollouts).toHaveLength(10);
  const block = rollouts.map((r) => JSON.stringify(r)).join("\n") + "\n";

  // The examples are in the demo data; sending them once more makes sure of it whatever ran before.
  const primed = await request.post("/api/v1/ingest", { headers, data: block });
  expect(primed.status()).toBe(200);
  const primedSummary = await primed.json();
  expect(primedSummary).toMatchObject({ ok: true, lines: 10, rejected: 0 });

  const tag = randomBytes(6).toString("hex");
  const first = `T-E2E-${tag}-first`;
  const last = `T-E2E-${tag}-last`;
  const reps = Math.ceil(MIN_BODY_BYTES / Buffer.byteLength(block)) + 1;
  const body = [
    JSON.stringify(freshCase(rollouts[0], first)),
    "\n",
    block.repeat(reps),
    JSON.stringify(freshCase(rollouts[0], last)),
    "\n",
  ].join("");
  expect(Buffer.byteLength(body)).toBeGreaterThan(MIN_BODY_BYTES);
  const repeated = reps * 10;

  const res = await request.post("/api/v1/ingest", { headers, data: body, timeout: 220_000 });
  expect(res.status()).toBe(200);
  const summary = await res.json();
  expect(summary).toMatchObject({
    ok: true,
    lines: repeated + 2,
    accepted: 2,
    unchanged: repeated,
    rejected: 0,
    scored: 0,
    unscored: 0,
    rejects: [],
    truncated: false,
    last_committed_line: repeated + 2,
  });
  expect(summary.by_kind.case.accepted).toBe(2);
  expect(summary.by_kind.rollout).toEqual({ accepted: 0, unchanged: repeated });
  expect(summary.by_kind.score).toEqual({ accepted: 0, unchanged: 0 });
  expect(await storedCases([first, last])).toEqual([first, last]);

  // The same body again is a no-op, the two new cases included.
  const again = await request.post("/api/v1/ingest", { headers, data: body, timeout: 220_000 });
  expect(again.status()).toBe(200);
  expect(await again.json()).toMatchObject({
    ok: true,
    lines: repeated + 2,
    accepted: 0,
    unchanged: repeated + 2,
    rejected: 0,
  });
});

test("the token API answers without the console's page headers, the pages keep their nonce", async ({ request }) => {
  const api = await request.get("/api/v1/whoami");
  expect(api.status()).toBe(401);
  const apiCsp = api.headers()["content-security-policy"];
  expect(apiCsp).toContain("default-src 'none'");
  expect(apiCsp).toContain("frame-ancestors 'none'");

  const page = await request.get("/sign-in");
  expect(page.status()).toBe(200);
  expect(page.headers()["content-security-policy"]).toMatch(/'nonce-[^']+'/);
});
