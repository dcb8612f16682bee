// GET /api/v1/reward-leaderboard and `verity reward compare`: who may read it (a read token whose owner may read the
// ledger; an annotator's token may not), bad parameters answered 400 naming the parameter, JSON and CSV of the same
// rows, and the CLI printing the same JSON (--json) or a table with the ledger's row marked.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { GET } from "@/app/api/v1/reward-leaderboard/route.ts";
import { createApiToken, createUser } from "@/lib/admin/mutations.ts";
import { run as rewardCli } from "@/lib/cli/reward.ts";
import { captureIo } from "@/lib/testing/cli-io.ts";
import { seedLeaderboardRun, type LeaderboardSeed } from "@/lib/testing/leaderboard-seed.ts";

const url = process.env.DATABASE_URL!;
let seed: LeaderboardSeed;
const tokens: Record<string, string> = {};

async function tokenOf(role: "admin" | "researcher" | "annotator") {
  const email = `${role}-${randomBytes(5).toString("hex")}@test.local`;
  const u = await createUser({ email, name: "", role, password: "a long enough password" }, { label: "test" });
  if (!u.ok) throw new Error(u.error);
  return (await createApiToken({ name: `lb-${role}`, scopes: ["read"] }, { userId: u.id, email })).token;
}

beforeAll(async () => {
  seed = await seedLeaderboardRun(url, 24);
  for (const role of ["admin", "researcher", "annotator"] as const) tokens[role] = await tokenOf(role);
}, 300_000);

const get = (query: string, auth: string | null = tokens.researcher) =>
  GET(
    new Request(`http://verity.test/api/v1/reward-leaderboard?${query}`, {
      headers: auth ? { authorization: `Bearer ${auth}` } : {},
    }),
    undefined,
  );

async function cli(argv: string[]) {
  const c = captureIo();
  const code = await rewardCli(["compare", ...argv], c.io);
  return { code, out: c.out.join("\n"), err: c.err.join("\n") };
}

describe("GET /api/v1/reward-leaderboard", () => {
  it("answers readers of the ledger, and refuses no token and an annotator's token", async () => {
    expect((await get(`run=${seed.runId}`, null)).status).toBe(401);
    expect((await get(`run=${seed.runId}`, tokens.annotator)).status).toBe(403);
    for (const role of ["admin", "researcher"]) expect((await get(`run=${seed.runId}`, tokens[role])).status).toBe(200);
  });

  it("refuses a bad parameter with 400 naming it, and an unknown run with 404", async () => {
    for (const [query, message] of [
      ["", /^run: name a run/],
      [`run=${seed.runId}&sort=nope`, /^sort: must be one of agreement, kappa/],
      [`run=${seed.runId}&threshold=ledger:2`, /^threshold: "ledger:2" is not ROW:T/],
      [`run=${seed.runId}&from=9&to=3`, /^to: must not be below from \(9\)/],
      [`run=${seed.runId}&a=ledger&b=ledger`, /^b: must be another row than a/],
      [`run=${seed.runId}&a=999999&b=ledger`, /^a: no row 999999 on this leaderboard/],
      [`run=${seed.runId}&format=xml`, /^format: must be json or csv/],
      [`run=${seed.runId}&sort=mae&sort=cost`, /^sort: given more than once/],
      [`run=${seed.runId}&colour=red`, /^unknown parameter "colour"/],
      [`batch=${seed.pairBatch}`, /^batch: #\d+ is a pairwise batch/],
    ] as const) {
      const res = await get(query);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect((await res.json()).error.message).toMatch(message);
    }
    const missing = await get("run=no-such-run");
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toBe("run: no run no-such-run");
  });

  it("gives the rows sorted, the head to head of a and b, and the same rows as CSV", async () => {
    const judge = String(seed.versions.judge);
    const res = await get(`run=${seed.runId}&sort=mae&a=ledger&b=${judge}&side=a`);
    expect(res.status).toBe(200);
    const body = await res.json();
    const ids = body.rows.map((r: { id: string }) => r.id);
    expect(ids.sort()).toEqual(["ledger", ...Object.values(seed.versions).map(String)].sort());
    const maes = body.rows.map((r: { reward: { mae: { value: number | null } } }) => r.reward.mae.value);
    const defined = maes.filter((m: number | null) => m !== null);
    expect(defined).toEqual([...defined].sort((x: number, y: number) => x - y));
    expect(maes.slice(defined.length).every((m: number | null) => m === null)).toBe(true);
    expect(body.headToHead.a.id).toBe("ledger");
    expect(body.headToHead.disagreements.every((d: { humanSide: string }) => d.humanSide === "a")).toBe(true);
    expect(body.headToHead.disagreements.length).toBe(body.headToHead.sides.a);

    const csv = await get(`run=${seed.runId}&sort=mae&format=csv`);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const lines = (await csv.text()).trim().split("\n");
    expect(lines[0]).toMatch(/^id,label,kind,ledger,threshold,items,covered,missing_not_run,/);
    expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(body.rows.map((r: { id: string }) => r.id));
    const header = lines[0].split(",");
    const ledger = lines
      .slice(1)
      .find((l) => l.startsWith("ledger,"))!
      .split(",");
    const ledgerRow = body.rows.find((r: { id: string }) => r.id === "ledger");
    expect(Number(ledger[header.indexOf("agreement")])).toBe(ledgerRow.verdict.agreement.value);
    expect(Number(ledger[header.indexOf("covered")])).toBe(ledgerRow.coverage.covered);
  });
});

describe("verity reward compare", () => {
  it("prints what the API answers with --json, and a table marking the ledger's row", async () => {
    const json = await cli(["--run", seed.runId, "--a", "ledger", "--b", String(seed.versions.rule), "--json"]);
    expect(json).toMatchObject({ code: 0, err: "" });
    const api = await (await get(`run=${seed.runId}&a=ledger&b=${seed.versions.rule}`)).json();
    expect(JSON.parse(json.out)).toEqual(api);

    const table = await cli(["--run", seed.runId, "--a", "ledger", "--b", String(seed.versions.rule)]);
    expect(table.code).toBe(0);
    const lines = table.out.split("\n");
    expect(lines[0]).toMatch(new RegExp(`^reward leaderboard of ${seed.runId}: \\d+ audited items`));
    expect(lines[1]).toMatch(/^row\s+kind\s+covered\s+missing\s+agreement/);
    expect(lines.filter((l) => l.startsWith("* ledger [ledger]"))).toHaveLength(1);
    expect(table.out).toMatch(/head to head: A = ledger, B = /);
    expect(table.out).toMatch(/ {2}verdict {10}(.* agrees more often than |the audit cannot tell them apart)/);
  });

  it("names a bad flag (exit 2) and an unknown run (exit 1)", async () => {
    expect(await cli(["--run", seed.runId, "--sort", "nope"])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^verity reward compare: --sort: must be one of/),
    });
    expect(await cli(["--run", "no-such-run"])).toMatchObject({
      code: 1,
      err: "verity reward compare: --run: no run no-such-run",
    });
  });
});
