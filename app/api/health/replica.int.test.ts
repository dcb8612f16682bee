// Reads from a streaming standby, against a real PostgreSQL 15 primary and hot standby (lib/testing/standby-pair.ts)
// on ports the system chose: what the read-only loaders, the token export and /api/health show comes from the
// standby, a standby that stops costs no request (the primary answers within it), and the lag is measured honestly.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/lib/admin/mutations.ts";
import { computeClusterReport } from "@/lib/clusters/loaders.ts";
import { bindDatabase, createClient } from "@/lib/db/client.ts";
import { bindReadDatabase, type ReadClient, readDb, unbindReadDatabase } from "@/lib/db/read-client.ts";
import { measureReplicaLag } from "@/lib/db/replica-lag.ts";
import { browseLedger } from "@/lib/ledger/browse.ts";
import { browseParamsSchema } from "@/lib/ledger/browse-schema.ts";
import { loadRunCharts } from "@/lib/monitors/loaders.ts";
import { listRunSummaries } from "@/lib/runs/data.ts";
import { ingestText, ndjson } from "@/lib/testing/ingest-db.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { startStandbyPair, type StandbyPair } from "@/lib/testing/standby-pair.ts";
import { GET as health } from "@/app/api/health/route.ts";
import { GET as ledgerNdjson } from "@/app/api/v1/runs/[run]/ledger.ndjson/route.ts";
import { GET as ledgerParquet } from "@/app/api/v1/runs/[run]/ledger.parquet/route.ts";

let pair: StandbyPair;
let read: ReadClient;
let primary: pg.Pool;
let standby: pg.Pool;
let token: string;
const logs: string[] = [];

beforeAll(async () => {
  pair = await startStandbyPair();
  // The health route and the token check read the environment and the shared client: both point at this pair.
  process.env.DATABASE_URL = pair.primaryUrl;
  process.env.DATABASE_REPLICA_URL = pair.standbyUrl;
  process.env.VERITY_REPLICA_MAX_LAG = "1";
  const writer = await bindDatabase(pair.primaryUrl);
  read = await bindReadDatabase(pair.primaryUrl, pair.standbyUrl, (l) => logs.push(l));
  primary = new pg.Pool({ connectionString: pair.primaryUrl, max: 2 });
  standby = new pg.Pool({ connectionString: pair.standbyUrl, max: 2 });
  standby.on("error", () => undefined);
  // pool.end() resolves before its clients' sockets close, and afterAll stops both servers right after: a connection
  // the shutdown ends first is reported to its pool, which would throw it without a listener.
  primary.on("error", () => undefined);
  const u = await createUser(
    { email: "replica@test.local", name: "", role: "admin", password: "replica-test-password" },
    { label: "test" },
    writer,
  );
  if (!u.ok) throw new Error(u.error);
  token = (
    await createApiToken({ name: "replica", scopes: ["read"] }, { userId: u.id, email: "replica@test.local" }, writer)
  ).token;
}, 120_000);

afterAll(async () => {
  await unbindReadDatabase();
  await primary?.end();
  await standby?.end();
  await pair?.stop();
});

async function ingestRun(runId: string, n = 3) {
  const lines = [caseLine(`T-${runId}`)];
  for (let i = 0; i < n; i++) lines.push(rolloutLine(`${runId}/${i}`, `T-${runId}`, { run: runId, step: i + 1 }));
  const s = await ingestText(primary, ndjson(lines));
  expect(s).toMatchObject({ ok: true, rejected: 0 });
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const browse = (run: string) => browseLedger(browseParamsSchema.parse({ run }), 100);
const exportLines = async (run: string) => {
  const res = await ledgerNdjson(
    new Request(`http://console.test/api/v1/runs/${run}/ledger.ndjson`, {
      headers: { authorization: `Bearer ${token}` },
    }),
    { params: Promise.resolve({ run }) },
  );
  const lines = res.status === 200 ? (await res.text()).trim().split("\n") : [];
  // The run's score records, without the case lines the export puts before them.
  return { status: res.status, lines: lines.filter((l) => "trajectory_id" in JSON.parse(l)) };
};
const parquetStatus = async (run: string) =>
  (
    await ledgerParquet(
      new Request(`http://console.test/api/v1/runs/${run}/ledger.parquet`, {
        headers: { authorization: `Bearer ${token}` },
      }),
      { params: Promise.resolve({ run }) },
    )
  ).status;
const healthBody = async () =>
  (await (await health(new Request("http://console.test/api/health"))).json()) as {
    ok: boolean;
    replica?: Record<string, unknown>;
  };

describe("reads from a streaming standby", () => {
  it("the read client is the standby's: a primary write appears in the loaders only once the standby replays it", async () => {
    expect(readDb()).toBe(read.client);
    const [{ standby: inRecovery }] = await read.client.$queryRaw<{ standby: boolean }[]>`
      select pg_is_in_recovery() as standby`;
    expect(inRecovery).toBe(true);

    // Replay paused: the primary has the run, the standby (and so every read-only page) does not yet.
    await standby.query("select pg_wal_replay_pause()");
    try {
      await ingestRun("rep-a");
      expect((await listRunSummaries(createClient(pair.primaryUrl))).map((r) => r.id)).toContain("rep-a");
      expect((await listRunSummaries(read.client)).map((r) => r.id)).not.toContain("rep-a");
      expect((await browse("rep-a")).rows).toHaveLength(0);
      expect((await exportLines("rep-a")).status).toBe(404);
      expect(await parquetStatus("rep-a")).toBe(404);
    } finally {
      await standby.query("select pg_wal_replay_resume()");
    }
    await until("the standby to replay the run", async () =>
      (await listRunSummaries(read.client)).some((r) => r.id === "rep-a"),
    );
    expect((await browse("rep-a")).rows.map((r) => r.trajectoryId).sort()).toEqual(["rep-a/0", "rep-a/1", "rep-a/2"]);
    const charts = await loadRunCharts("rep-a", {}, read.client);
    expect(charts.state).toBe("ok");
    expect(charts.state === "ok" && charts.data.extent).toEqual({ first: 1, last: 3 });
    expect((await computeClusterReport({ runId: "rep-a", threshold: 0.5 }, read.client)).rollouts).toBe(3);
    const exported = await exportLines("rep-a");
    expect(exported.status).toBe(200);
    expect(await parquetStatus("rep-a")).toBe(200);
    expect(exported.lines.map((l) => JSON.parse(l).trajectory_id).sort()).toEqual(["rep-a/0", "rep-a/1", "rep-a/2"]);
  });

  it("/api/health reports the lag: 0 when the standby has replayed everything, however idle the primary", async () => {
    await until("the standby to catch up", async () => (await healthBody()).replica?.lagSeconds === 0);
    // Two idle seconds: the last replayed transaction is older than the 1 s limit, yet nothing is missing.
    await new Promise((r) => setTimeout(r, 2000));
    const h = await healthBody();
    expect(h.ok).toBe(true);
    expect(h.replica).toMatchObject({ reachable: true, standby: true, lagSeconds: 0, ok: true, maxLagSeconds: 1 });
  });

  it("/api/health reports a standby behind the primary as lagging by the age of what it last replayed", async () => {
    await standby.query("select pg_wal_replay_pause()");
    try {
      await ingestRun("rep-lag", 1);
      await new Promise((r) => setTimeout(r, 2200));
      const h = await healthBody();
      expect(h.ok).toBe(true); // a lagging replica costs freshness, not the console's health
      expect(h.replica).toMatchObject({ reachable: true, ok: false });
      expect(h.replica!.lagSeconds as number).toBeGreaterThanOrEqual(2);
      const lag = await measureReplicaLag(pair.primaryUrl, pair.standbyUrl, 60);
      expect(lag.ok).toBe(true); // within a 60 s limit
    } finally {
      await standby.query("select pg_wal_replay_resume()");
    }
  });

  it("a stopped standby: the same call is answered by the primary, logged once, and the standby is used again later", async () => {
    await until("the standby to replay rep-lag", async () =>
      (await listRunSummaries(read.client)).some((r) => r.id === "rep-lag"),
    );
    await pair.stopStandby();
    try {
      const started = Date.now();
      expect((await browse("rep-a")).rows).toHaveLength(3);
      expect(Date.now() - started).toBeLessThan(3000);
      expect((await listRunSummaries(read.client)).map((r) => r.id)).toEqual(
        expect.arrayContaining(["rep-a", "rep-lag"]),
      );
      expect((await exportLines("rep-a")).lines).toHaveLength(3);
      const [{ standby: inRecovery }] = await read.client.$queryRaw<{ standby: boolean }[]>`
        select pg_is_in_recovery() as standby`;
      expect(inRecovery).toBe(false);
      expect(logs.filter((l) => /unreachable/.test(l))).toHaveLength(1);
      expect(await healthBody()).toMatchObject({
        ok: true,
        replica: { reachable: false, ok: false, lagSeconds: null },
      });
    } finally {
      await pair.startStandby();
    }
    // After the back-off (2 s), reads go to the standby again.
    await until("reads to return to the standby", async () => {
      const [{ standby: s }] = await read.client.$queryRaw<
        { standby: boolean }[]
      >`select pg_is_in_recovery() as standby`;
      return s;
    });
    expect(logs.filter((l) => /answers again; reading from it/.test(l))).toHaveLength(1);
    expect(logs.filter((l) => /unreachable/.test(l))).toHaveLength(1);
  });
});
