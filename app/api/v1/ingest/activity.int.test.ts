// An API ingest is in the activity log under its token, with the run it named and its counts.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/v1/ingest/route.ts";
import { createApiToken, createUser } from "@/lib/admin/mutations.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";

const tag = randomBytes(3).toString("hex");
let token: string;
let tokenName: string;

beforeAll(async () => {
  const email = `load-log-${tag}@test.local`;
  const u = await createUser({ email, name: "", role: "admin", password: "a long enough password" }, { label: "test" });
  if (!u.ok) throw new Error(u.error);
  tokenName = `trainer-${tag}`;
  token = (await createApiToken({ name: tokenName, scopes: ["ingest"] }, { userId: u.id, email })).token;
});

type Entry = { actor_label: string; target_type: string; details: Record<string, unknown> };

async function entries(run: string): Promise<Entry[]> {
  const r = await bulkPool().query<Entry>(
    `select actor_label, target_type, details from activity_log
      where action = 'ingest.api' and target_type = 'run' and target_id = $1 order by id`,
    [run],
  );
  return r.rows;
}

const lines = (run: string, ticket: string) =>
  [caseLine(ticket), rolloutLine(`${run}/1`, ticket, { run }), externalScore(`${run}/2`, ticket, 0.5, { run })]
    .map((l) => JSON.stringify(l))
    .join("\n") + "\n{broken\n";

describe("POST /api/v1/ingest in the activity log", () => {
  it("records an API ingest under its token, with the run and the counts", async () => {
    const run = `api-log-${tag}`;
    const res = await POST(
      new Request(`http://verity.test/api/v1/ingest?run=${run}`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson", authorization: `Bearer ${token}` },
        body: lines(run, `T-api-${tag}`),
      }),
    );
    expect(res.status).toBe(200);
    const log = await entries(run);
    expect(log).toHaveLength(1);
    expect(log[0].actor_label).toBe(`token:${tokenName}`);
    expect(log[0].details).toMatchObject({
      ok: true,
      lines: 4,
      accepted: 3,
      rejected: 1,
      cases: 1,
      rollouts: 1,
      scores: 1,
    });
  });
});
