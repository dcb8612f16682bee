// The ingest's lock is per run (lib/ledger/store/write-batch.ts): while a writer of one run holds its lock, an ingest
// into another run goes through and one into the same run waits; a writer across runs (a case revision, an archive)
// holds back both; a writer that brings a new run holds back every other for its first batch, so two ingests of new
// runs at once cannot deadlock on the runs' partitions. Runs on the single node and, through `npm test -- citus`, on a distributed database.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { beginLedgerWrite, beginLedgerWriteAllRuns } from "@/lib/ledger/store/write-batch.ts";
import { freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await freshDatabase("runlock");
});
afterAll(async () => {
  await t?.drop();
});

const body = (run: string, n = 4) =>
  ndjson([
    caseLine(`T-${run}`),
    ...Array.from({ length: n }, (_, i) => rolloutLine(`${run}/${i}`, `T-${run}`, { run })),
  ]);

const entries = async (run: string) =>
  Number((await t.pool.query(`select count(*) as n from ledger where run_id = $1`, [run])).rows[0].n);

/** Ingests waiting for an advisory lock (the ingest's), as the server sees them. */
const waiting = async () =>
  Number(
    (await t.pool.query(`select count(*) as n from pg_locks where locktype = 'advisory' and not granted`)).rows[0].n,
  );

async function until(check: () => Promise<boolean>) {
  for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
}

/** Holds the lock `begin` takes on a connection of its own until the returned function releases it. */
async function hold(begin: (c: pg.PoolClient) => Promise<void>): Promise<() => Promise<void>> {
  const c = await t.pool.connect();
  await begin(c);
  return async () => {
    await c.query("rollback");
    c.release();
  };
}

describe("the ingest's lock", () => {
  it("is per run: another run ingests while one run's lock is held, the same run waits for it", async () => {
    // lock-b is stored already: a run's first batch waits for every writer (below).
    await t.pool.query(`insert into runs (id) values ('lock-b')`);
    const release = await hold((c) => beginLedgerWrite(c, ["lock-a"]));
    const a = ingestText(t.pool, body("lock-a"));
    await until(async () => (await waiting()) > 0);
    expect(await waiting()).toBe(1);
    expect(await ingestText(t.pool, body("lock-b"))).toMatchObject({ ok: true, rejected: 0, accepted: 5 });
    expect(await entries("lock-b")).toBe(4);
    expect(await entries("lock-a")).toBe(0);
    await release();
    expect(await a).toMatchObject({ ok: true, rejected: 0, accepted: 5 });
    expect(await entries("lock-a")).toBe(4);
  });

  it("two ingests into two runs at once both complete; into one run they serialise to one ledger", async () => {
    const [c, d] = await Promise.all([ingestText(t.pool, body("lock-c", 20)), ingestText(t.pool, body("lock-d", 20))]);
    expect(c).toMatchObject({ ok: true, rejected: 0, accepted: 21 });
    expect(d).toMatchObject({ ok: true, rejected: 0, accepted: 21 });
    // The same body twice at once: one writes it, the other finds it written (no duplicate, no conflict).
    const [e1, e2] = await Promise.all([
      ingestText(t.pool, body("lock-e", 20)),
      ingestText(t.pool, body("lock-e", 20)),
    ]);
    expect(e1.accepted + e2.accepted).toBe(21);
    expect(e1.unchanged + e2.unchanged).toBe(21);
    expect(e1.rejected + e2.rejected).toBe(0);
    expect(await entries("lock-e")).toBe(20);
  });

  it("two ingests that each bring new runs while the other writes both complete, round after round", async () => {
    // Each ingest brings four new runs, one after the other, in batches of 10 lines: a new run's first batch (which
    // makes its partitions on one node) comes while the other ingest is in the middle of its batches of another run.
    const runsOf = (who: string) => Array.from({ length: 4 }, (_, r) => `${who}-${r}`);
    const many = (who: string) =>
      ndjson([
        caseLine(`T-${who}`),
        ...runsOf(who).flatMap((run) =>
          Array.from({ length: 30 }, (_, i) => rolloutLine(`${run}/${i}`, `T-${who}`, { run })),
        ),
      ]);
    for (let round = 0; round < 4; round++) {
      const who = [`new-x${round}`, `new-y${round}`];
      const done = await Promise.all(who.map((w) => ingestText(t.pool, many(w), { batchLines: 10 })));
      for (const s of done) {
        expect(s.error).toBeUndefined();
        expect(s).toMatchObject({ ok: true, rejected: 0, accepted: 121, scored: 120 });
      }
      for (const run of who.flatMap(runsOf)) expect(await entries(run), run).toBe(30);
    }
  });

  it("a new run's first batch waits for the writers of other runs in flight, then goes alone", async () => {
    const release = await hold((c) => beginLedgerWrite(c, ["lock-g"]));
    const h = ingestText(t.pool, body("lock-h"));
    await until(async () => (await waiting()) > 0);
    expect(await waiting()).toBe(1);
    expect(await entries("lock-h")).toBe(0);
    await release();
    expect(await h).toMatchObject({ ok: true, rejected: 0, accepted: 5 });
    expect(await entries("lock-h")).toBe(4);
  });

  it("a writer across runs holds back every run's ingest until it is done", async () => {
    const release = await hold(beginLedgerWriteAllRuns);
    const f = ingestText(t.pool, body("lock-f"));
    await until(async () => (await waiting()) > 0);
    expect(await waiting()).toBe(1);
    expect(await entries("lock-f")).toBe(0);
    await release();
    expect(await f).toMatchObject({ ok: true, rejected: 0 });
    expect(await entries("lock-f")).toBe(4);
  });
});
