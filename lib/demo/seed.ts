// Demo data for an empty database (`npm start`, the e2e test database): the ten verifier examples as run grpo-demo,
// a generated GRPO run and its reward-hacking variant on the same tickets, all through the ingest path — so the
// ledger is exactly what the verifier says, and the rollups are filled as they would be in production.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import type { Variant } from "@/lib/demo/curve.ts";
import { describeDemoRun, demoRunValues, type DemoRunSpec } from "@/lib/demo/generate.ts";
import { env } from "@/lib/env.ts";
import { EXAMPLE_TRAINED_REWARDS } from "@/lib/demo/example-trained-rewards.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { checkout } from "@/lib/db/pool.ts";
import type { IngestSummary } from "@/lib/ingest/schema.ts";
import { afterWrite } from "@/lib/server/after-write.ts";

export const DEMO_SEED = "7";
export const EXAMPLES_RUN = "grpo-demo";

/** `small` keeps the test database quick to fill; `default` is what a first `npm start` loads. */
export const DEMO_SIZES = {
  small: { tickets: 60, steps: 40, k: 4 },
  default: { tickets: 300, steps: 80, k: 4 },
} as const;
export type DemoSize = keyof typeof DEMO_SIZES;

export const EXAMPLES_DIR = path.resolve(process.cwd(), "lib/verifier/examples");

/** The verifier's worked examples (lib/verifier/examples): rollouts with their cases embedded, in run grpo-demo. */
export function loadExamples(dir = EXAMPLES_DIR): unknown[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d\d-.+\.json$/.test(f) && !f.endsWith(".expected.json"))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")));
}

export function demoRunSpecs(size: DemoSize, seed = DEMO_SEED): DemoRunSpec[] {
  const s = DEMO_SIZES[size];
  const variants: [string, Variant][] = [
    ["grpo-main", "normal"],
    ["grpo-hacking", "hacking"],
  ];
  return variants.map(([runId, variant]) => ({ runId, variant, seed, ...s }));
}

/** Creates (or re-describes) a run before its rows arrive, so it carries a description. */
export async function describeRun(pool: pg.Pool, runId: string, description: string): Promise<void> {
  await pool.query(
    "insert into runs (id, description) values ($1, $2) on conflict (id) do update set description = excluded.description",
    [runId, description],
  );
}

function check(summary: IngestSummary, what: string): void {
  if (!summary.ok || summary.rejected > 0) {
    const first = summary.rejects[0];
    throw new Error(
      `loading ${what} failed: ${summary.error ?? `line ${first?.line} ${first?.path}: ${first?.message}`}`,
    );
  }
}

/** The worked examples as the demo loads them: with EXAMPLE_TRAINED_REWARDS on their rollouts. */
export function demoExamples(): unknown[] {
  return (loadExamples() as Record<string, unknown>[]).map((e) => {
    const trained = EXAMPLE_TRAINED_REWARDS[String(e.trajectory_id)];
    return trained === undefined ? e : { ...e, trained_reward: trained };
  });
}

/** `f`, called at most once per `ms` (the first call after `ms` have passed since the last one). */
function every<T>(ms: number, f: (x: T) => void): (x: T) => void {
  let last = Date.now();
  return (x) => {
    if (Date.now() - last < ms) return;
    last = Date.now();
    f(x);
  };
}

/** Serialises concurrent first starts: the second one waits, then finds the runs and loads nothing. */
const SEED_LOCK = 0x64656d6f;

/** The runs the demo loads: the worked examples and the generated pair. */
export const DEMO_RUNS = [EXAMPLES_RUN, ...demoRunSpecs("small").map((r) => r.runId)];

export type SeedDemoOptions = {
  size?: DemoSize;
  /** Load the demo runs unless they are there, beside whatever other runs the database holds. */
  force?: boolean;
  /** Told what is being loaded, before each part (the first start spends a minute here). */
  progress?: (line: string) => void;
};

/**
 * Loads demo data into an empty database (with `force`: into one without the demo runs); returns a one-line
 * description of what was loaded, or null. The size is VERITY_DEMO_SIZE (`small` for test databases) unless given.
 */
export async function seedDemoIfEmpty(url: string, opts: SeedDemoOptions = {}): Promise<string | null> {
  // A pool of its own: this runs in `npm start` and the test runner, and must not close a pool others share.
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  // An idle connection that breaks is dropped by the pool; without a listener the error would be thrown.
  pool.on("error", () => undefined);
  const lock = await checkout(pool);
  try {
    await lock.query("select pg_advisory_lock($1)", [SEED_LOCK]);
    const any = opts.force
      ? await pool.query("select exists(select 1 from runs where id = any($1)) as any", [DEMO_RUNS])
      : await pool.query("select exists(select 1 from runs) as any");
    if (any.rows[0].any) return null;
    const say = opts.progress ?? (() => undefined);
    const started = Date.now();
    const size = opts.size ?? env().VERITY_DEMO_SIZE;
    say(`loading demo data: ${EXAMPLES_RUN}, the 10 verifier examples…`);
    await describeRun(pool, EXAMPLES_RUN, "The ten worked examples of the verifier spec, one per rule.");
    const examples = await ingestValues(demoExamples(), { pool, after: afterWrite(pool) });
    check(examples, "the verifier examples");
    let rollouts = examples.by_kind.rollout.accepted;
    const runs: string[] = [];
    for (const spec of demoRunSpecs(size)) {
      const n = (spec.tickets * spec.steps * spec.k).toLocaleString("en-US");
      say(`loading demo data: ${spec.runId}, ${n} rollouts scored by the verifier…`);
      await describeRun(pool, spec.runId, describeDemoRun(spec));
      const summary = await ingestValues(demoRunValues(spec), {
        pool,
        batchLines: 4000,
        after: afterWrite(pool),
        onProgress: every(15_000, (p) =>
          say(`… ${spec.runId}: ${p.committedLine.toLocaleString("en-US")} lines loaded`),
        ),
      });
      check(summary, spec.runId);
      rollouts += summary.by_kind.rollout.accepted;
      runs.push(
        `${spec.runId} (${spec.tickets} tickets × ${spec.steps} steps × K=${spec.k}${spec.variant === "hacking" ? ", reward hacking" : ""})`,
      );
    }
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    return `${EXAMPLES_RUN} (the 10 verifier examples), ${runs.join(", ")}: ${rollouts.toLocaleString("en-US")} scored rollouts in ${secs} s`;
  } finally {
    await lock.query("select pg_advisory_unlock($1)", [SEED_LOCK]).catch(() => undefined);
    lock.release();
    await pool.end();
  }
}

/**
 * The runs that kept the demo out of a database (the demo loads only into an empty one): their ids (the first
 * `limit`, oldest first) and how many there are; null when the demo runs are there or there is no run at all.
 */
export async function runsWithoutDemo(url: string, limit = 3): Promise<{ ids: string[]; total: number } | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; total: number; demo: boolean }>(
      `select id, count(*) over ()::int as total, bool_or(id = any($1)) over () as demo
         from runs order by created_at, id`,
      [DEMO_RUNS],
    );
    if (!rows.length || rows[0].demo) return null;
    return { ids: rows.slice(0, limit).map((r) => r.id), total: rows[0].total };
  } finally {
    await client.end();
  }
}
