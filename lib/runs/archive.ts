// Archive of a run (`verity run archive R --out FILE`): its current ledger entries (with their cases) and its
// rollouts are exported as NDJSON, and only once that file is complete on disk are the run's partitions detached and
// dropped (014_partition_by_run), with its derived rows (trajectory lookup, monitors, cluster triage) and the run
// itself. Dropping a partition is a catalog change, so a run of a million entries goes in seconds, where deleting
// its rows would rewrite every index (and the append-only triggers refuse DELETE anyway).
import fs from "node:fs";
import { once } from "node:events";
import type pg from "pg";
import { exportLedgerChunks, inSnapshot, prefetched } from "@/lib/ledger/export.ts";
import { ROLLOUT_TEXT_COLUMNS, rolloutLine, type RolloutTextRow } from "@/lib/ledger/export-lines.ts";
import { checkout } from "@/lib/db/pool.ts";
import { beginLedgerWriteAllRuns } from "@/lib/ledger/store/write-batch.ts";

/** The run's partitioned tables, children before the tables their foreign keys point at. */
export const RUN_PARTITIONED_TABLES = [
  "reward_results",
  "ledger_reasons",
  "ledger_guardrails",
  "ledger",
  "rollout_search",
  "rollout_search_blocks",
  "rollouts",
  "step_guardrail_rollups",
  "step_rollups",
  "group_rollups",
] as const;

export type ArchiveSummary = {
  run: string;
  entries: number;
  rollouts: number;
  cases: number;
  bytes: number;
  exportMs: number;
  /** Of exportMs, the ledger's part (its entries and cases; the rest is the rollouts'). */
  ledgerExportMs: number;
  dropMs: number;
};

export class ArchiveRefused extends Error {}

/** Whether `table` is partitioned by run (the single node); on Citus it is distributed by run instead. */
async function partitioned(client: pg.PoolClient, table: string): Promise<boolean> {
  const { rows } = await client.query<{ p: boolean }>(
    `select relkind = 'p' as p from pg_class where oid = $1::regclass`,
    [table],
  );
  return rows[0]?.p ?? false;
}

type Counts = { entries: number; all_entries: number; rollouts: number; max_ledger: string | null };

async function countsOf(q: pg.ClientBase | pg.Pool, run: string): Promise<Counts> {
  const { rows } = await q.query<Counts>(
    `select (select count(*)::int from ledger where run_id = $1 and is_current) as entries,
            (select count(*)::int from ledger where run_id = $1) as all_entries,
            (select count(*)::int from rollouts where run_id = $1) as rollouts,
            (select max(id)::text from ledger where run_id = $1) as max_ledger`,
    [run],
  );
  return rows[0];
}

const BATCH = 2000;

/**
 * The run's rollouts as ingest lines (formats.md §2), in id order, from one read-only snapshot, a batch of whole lines
 * at a time: built from the columns with their JSON as text (export-lines.ts), each tool registry read once.
 */
function exportRollouts(pool: pg.Pool, run: string): AsyncGenerator<{ text: string; rollouts: number }> {
  return inSnapshot(pool, async function* (client) {
    const registries = new Map<number, string>();
    const read = (after: string) =>
      prefetched(
        client.query<RolloutTextRow>(
          `select ${ROLLOUT_TEXT_COLUMNS} from rollouts r where r.run_id = $1 and r.id > $2::bigint order by r.id limit $3`,
          [run, after, BATCH],
        ),
      );
    // the next batch is read while this one is turned into lines and written (as currentEntryBatches does)
    let pending: ReturnType<typeof read> | null = read("0");
    while (pending) {
      const rows: RolloutTextRow[] = (await pending).rows;
      pending = rows.length < BATCH ? null : read(rows[rows.length - 1].id);
      const missing = [...new Set(rows.map((r) => r.registry_id))].filter((id) => !registries.has(id));
      if (missing.length) {
        const found = await client.query<{ id: number; tools: string }>(
          "select id, tools::text as tools from tool_registries where id = any($1::int[])",
          [missing],
        );
        for (const r of found.rows) registries.set(r.id, r.tools);
      }
      let text = "";
      for (const r of rows) text += rolloutLine(r, registries.get(r.registry_id)!);
      if (rows.length) yield { text, rollouts: rows.length };
    }
  });
}

/**
 * Exports the run to `out` (written to `out.partial`, flushed to disk, then renamed) and drops its partitions. Refuses,
 * leaving the database untouched, when the run does not exist, has shadow-audit batches (their reviews are people's
 * work and point at its entries), the export fails, or the run changed between the export and the drop (a write
 * after the export would be lost: the counts read in the export must still hold under the ledger write lock).
 */
export async function archiveRun(pool: pg.Pool, run: string, out: string): Promise<ArchiveSummary> {
  const exists = await pool.query("select 1 from runs where id = $1", [run]);
  if (!exists.rowCount) throw new ArchiveRefused(`no run ${JSON.stringify(run)}`);
  const batches = await pool.query<{ n: number }>("select count(*)::int as n from audit_batches where run_id = $1", [
    run,
  ]);
  if (batches.rows[0].n > 0)
    throw new ArchiveRefused(
      `run ${JSON.stringify(run)} has ${batches.rows[0].n} shadow-audit batch(es): their reviews point at its ledger entries, so it is not archived`,
    );

  const t0 = performance.now();
  const before = await countsOf(pool, run);
  const partial = `${out}.partial`;
  const sink = fs.createWriteStream(partial, { flags: "wx" });
  const failed = new Promise<never>((_, reject) => sink.on("error", reject));
  failed.catch(() => undefined); // observed by the races below; an error before the first race is not unhandled
  let entries = 0;
  let rollouts = 0;
  let cases = 0;
  let ledgerMs = 0;
  try {
    const write = async (text: string) => {
      if (!sink.write(text)) await Promise.race([once(sink, "drain"), failed]);
    };
    for await (const chunk of exportLedgerChunks(pool, { run, cases: true })) {
      cases += chunk.cases;
      entries += chunk.records;
      await write(chunk.text);
    }
    ledgerMs = performance.now() - t0;
    for await (const chunk of exportRollouts(pool, run)) {
      rollouts += chunk.rollouts;
      await write(chunk.text);
    }
    await Promise.race([new Promise<void>((res) => sink.end(res)), failed]);
    const fd = fs.openSync(partial, "r");
    fs.fsyncSync(fd);
    fs.closeSync(fd);
  } catch (err) {
    sink.destroy();
    fs.rmSync(partial, { force: true });
    throw new ArchiveRefused(`the export did not complete (${(err as Error).message}); nothing was dropped`);
  }
  if (entries !== before.entries || rollouts !== before.rollouts) {
    fs.rmSync(partial, { force: true });
    throw new ArchiveRefused(
      `the export wrote ${entries} entries and ${rollouts} rollouts where the run has ${before.entries} and ${before.rollouts}: the run changed while it was exported; nothing was dropped`,
    );
  }
  fs.renameSync(partial, out);
  const bytes = fs.statSync(out).size;
  const t1 = performance.now();

  const client = await checkout(pool);
  try {
    await beginLedgerWriteAllRuns(client);
    const now = await countsOf(client, run);
    if (JSON.stringify(now) !== JSON.stringify(before))
      throw new ArchiveRefused(
        `run ${JSON.stringify(run)} changed after its export (${now.all_entries} ledger rows, ${now.rollouts} rollouts; exported from ${before.all_entries} and ${before.rollouts}): nothing was dropped; archive it again`,
      );
    const again = await client.query("select 1 from audit_batches where run_id = $1", [run]);
    if (again.rowCount)
      throw new ArchiveRefused(`run ${JSON.stringify(run)} gained a shadow-audit batch; nothing was dropped`);
    // trajectories refuses deletes but archive's, of the run it archives (migration 034); on Citus so do the run's
    // tables, whose rows archive deletes (lib/db/distribute.ts). A SET, not set_config(): Citus passes it on to the
    // workers. Deleting the rollups is their writer's work.
    await client.query(
      `set local verity.archiving_run = ${client.escapeLiteral(run)}; set local verity.rollup_writer = 'on'`,
    );
    await client.query("delete from trajectories where run_id = $1", [run]);
    await client.query("delete from monitor_alarm_events where run_id = $1", [run]);
    await client.query("delete from monitor_alarms where run_id = $1", [run]);
    await client.query("delete from cluster_states where run_id = $1", [run]);
    await client.query("delete from score_change_marks where run_id = $1", [run]);
    for (const table of RUN_PARTITIONED_TABLES) {
      if (!(await partitioned(client, table))) {
        // Distributed by run on Citus (docs/scale.md): the run's rows are deleted from its shard.
        await client.query(`delete from "${table}" where run_id = $1`, [run]);
        continue;
      }
      const { rows } = await client.query<{ name: string; attached: boolean }>(
        `select verity_run_partition_name($1, $2) as name,
                exists (select 1 from pg_inherits i where i.inhrelid = to_regclass(quote_ident(verity_run_partition_name($1, $2)))
                           and i.inhparent = $1::regclass) as attached`,
        [table, run],
      );
      if (!rows[0].attached) continue;
      await client.query(`alter table "${table}" detach partition "${rows[0].name}"`);
      await client.query(`drop table "${rows[0].name}"`);
    }
    await client.query("delete from run_counters where run_id = $1", [run]);
    await client.query("delete from search_omitted_words where run_id = $1", [run]);
    await client.query("delete from runs where id = $1", [run]);
    await client.query("commit");
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    client.release();
    throw err;
  }
  client.release();
  return {
    run,
    entries,
    rollouts,
    cases,
    bytes,
    exportMs: Math.round(t1 - t0),
    ledgerExportMs: Math.round(ledgerMs),
    dropMs: Math.round(performance.now() - t1),
  };
}
