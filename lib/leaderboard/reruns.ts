// How a reward function holds up, read from its probe and retest runs (lib/rewards/run-pages.ts): each probed or
// retested result joined to the result it pairs with (reward_results.paired_with, same run partition). For the
// leaderboard, a version's latest probe and retest on a run as RerunPair lists; for the function's page, the CLI
// and the API, each run's report: the figures of rerunSummary overall and, for a probe, per injected line.
import type pg from "pg";
import type { Db } from "@/lib/db/client.ts";
import { DEFAULT_PASS_THRESHOLD, type RerunPair } from "@/lib/leaderboard/input.ts";
import { rerunSummary, type RerunSummary } from "@/lib/leaderboard/stability.ts";
import { PROBE_LINES, type ProbeLine } from "@/lib/rewards/probes.ts";

/** Where the pairs are read: pg's pool (the CLI, the API, the page) or a Prisma client (the leaderboard's loader). */
export type RerunSource = pg.Pool | Db;

async function select<T>(q: RerunSource, text: string, values: unknown[]): Promise<T[]> {
  if ("$queryRawUnsafe" in q) return q.$queryRawUnsafe<T[]>(text, ...values);
  return (await q.query(text, values)).rows as T[];
}

type PairRow = {
  reward_run_id: number;
  rollout_id: string;
  probe_line: string | null;
  first: number | null;
  second: number | null;
};

/** The pairs of these reward runs of one training run, in the order they were stored. */
async function pairsOf(q: RerunSource, runId: string, rewardRunIds: number[]): Promise<PairRow[]> {
  if (rewardRunIds.length === 0) return [];
  return select<PairRow>(
    q,
    `select s.reward_run_id, s.rollout_id::text as rollout_id, s.probe_line, f.reward as first, s.reward as second
       from reward_results s join reward_results f on f.run_id = s.run_id and f.id = s.paired_with
      where s.run_id = $1 and s.reward_run_id = any($2::int[]) and s.paired_with is not null
      order by s.id`,
    [runId, rewardRunIds],
  );
}

const toPair = (r: PairRow): RerunPair => ({ first: r.first, second: r.second, rollout: r.rollout_id });

/** A report's row of a stored pair: its line, both rewards and its rollout. */
const toReportRow = (r: PairRow) => ({ probeLine: r.probe_line, ...toPair(r) });

type RerunPairs = { probe: RerunPair[]; retest: RerunPair[] };

/** The latest probe run and the latest retest run of each version on the run that stored any pair. */
async function latestRerunIds(
  q: RerunSource,
  runId: string,
  versionIds: number[],
): Promise<{ id: number; version_id: number; kind: "probe" | "retest" }[]> {
  return select<{ id: number; version_id: number; kind: "probe" | "retest" }>(
    q,
    `select distinct on (r.version_id, r.kind) r.id, r.version_id, r.kind from reward_runs r
      where r.run_id = $1 and r.version_id = any($2::int[]) and r.kind in ('probe', 'retest')
        and exists (select 1 from reward_results x
                     where x.run_id = r.run_id and x.reward_run_id = r.id and x.paired_with is not null)
      order by r.version_id, r.kind, r.id desc`,
    [runId, versionIds],
  );
}

/**
 * For the leaderboard: each version's latest injection probe on the run (one pair per rollout and line: the reward as
 * it is, and with the line) and its latest retest (one pair per rollout: the stored reward, and the second run's).
 * Two statements whatever the number of versions; a version without either has empty lists.
 */
export async function loadRerunPairsOf(
  q: RerunSource,
  runId: string,
  versionIds: number[],
): Promise<Map<number, RerunPairs>> {
  const out = new Map<number, RerunPairs>(versionIds.map((v) => [v, { probe: [], retest: [] }]));
  if (versionIds.length === 0) return out;
  const latest = await latestRerunIds(q, runId, versionIds);
  const byRun = new Map(latest.map((r) => [r.id, r]));
  for (const row of await pairsOf(q, runId, [...byRun.keys()])) {
    const r = byRun.get(row.reward_run_id)!;
    out.get(r.version_id)![r.kind].push(toPair(row));
  }
  return out;
}

/** loadRerunPairsOf for one version. */
export async function loadRerunPairs(q: RerunSource, runId: string, versionId: number): Promise<RerunPairs> {
  return (await loadRerunPairsOf(q, runId, [versionId])).get(versionId)!;
}

export type LineReport = { line: ProbeLine; summary: RerunSummary };

export type RerunReport = {
  rewardRunId: number;
  kind: "probe" | "retest";
  threshold: number;
  /**
   * Every pair: for a probe, each (rollout, line), the intervals counting a rollout's lines together (clustered by
   * rollout, lib/leaderboard/stability.ts).
   */
  overall: RerunSummary;
  /** A probe's figures per injected line, in PROBE_LINES order; empty for a retest. */
  lines: LineReport[];
  /** The reward moved: overall or on any line (RerunSummary.moved). */
  moved: boolean;
};

/** The report of one probe or retest run's pairs. Pure. */
export function rerunReport(
  rewardRunId: number,
  kind: "probe" | "retest",
  rows: readonly (RerunPair & { probeLine: string | null })[],
  threshold = DEFAULT_PASS_THRESHOLD,
): RerunReport {
  const overall = rerunSummary(rows, threshold);
  const lines =
    kind === "probe"
      ? PROBE_LINES.map((line) => ({
          line,
          summary: rerunSummary(
            rows.filter((r) => r.probeLine === line.id),
            threshold,
          ),
        }))
      : [];
  return { rewardRunId, kind, threshold, overall, lines, moved: overall.moved || lines.some((l) => l.summary.moved) };
}

/** A report with the run it came from: the function's version, when it started, and how it ended (or is going). */
export type DatedReport = RerunReport & { version: number; startedAt: Date; status: string };

export type HoldsUp = { runId: string; probe: DatedReport | null; retest: DatedReport | null };

/**
 * For the function's page, the CLI and the API: on each training run, its latest probe and latest retest (of any of
 * its versions, the version named), newest run first.
 */
export async function loadHoldsUp(q: pg.Pool, functionName: string): Promise<HoldsUp[]> {
  const { rows: runs } = await q.query<{
    id: number;
    run_id: string;
    kind: "probe" | "retest";
    version: number;
    status: string;
    started_at: Date;
  }>(
    `select distinct on (r.run_id, r.kind) r.id, r.run_id, r.kind, v.version, r.status, r.started_at
       from reward_runs r join reward_function_versions v on v.id = r.version_id
       join reward_functions f on f.id = v.function_id
      where f.name = $1 and r.kind in ('probe', 'retest')
      order by r.run_id, r.kind, r.id desc`,
    [functionName],
  );
  const byRun = new Map<string, HoldsUp>();
  for (const r of runs.sort((a, b) => b.id - a.id)) {
    const rows = await pairsOf(q, r.run_id, [r.id]);
    const report = rerunReport(r.id, r.kind, rows.map(toReportRow));
    const entry = byRun.get(r.run_id) ?? { runId: r.run_id, probe: null, retest: null };
    entry[r.kind] = { ...report, version: r.version, startedAt: r.started_at, status: r.status };
    byRun.set(r.run_id, entry);
  }
  return [...byRun.values()];
}

/** One reward run's report, or null when it is not a probe or a retest. */
export async function loadRerunReport(q: pg.Pool, rewardRunId: number): Promise<RerunReport | null> {
  const { rows } = await q.query<{ run_id: string; kind: string }>(
    "select run_id, kind from reward_runs where id = $1",
    [rewardRunId],
  );
  const run = rows[0];
  if (!run || (run.kind !== "probe" && run.kind !== "retest")) return null;
  const pairs = await pairsOf(q, run.run_id, [rewardRunId]);
  return rerunReport(rewardRunId, run.kind, pairs.map(toReportRow));
}
