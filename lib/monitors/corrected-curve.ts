// The human-corrected reward curve of a run: per fixed step window [k·w, (k+1)·w) (the audit chart's grid), the
// ledger's success rate beside the two-phase rate corrected by the shadow audit, and the ledger's mean reward
// beside the mean corrected by the audit's human − ledger difference, each with a 95% cluster-bootstrap interval
// over audited tickets (lib/stats/corrected-rate.ts).
//
// correctedCurve(db, runId, { windowSteps? }) → null for an unknown run, else
//   { runId, windowSteps, windows: CorrectedWindow[] } with, per window that has ledger entries, in step order:
//   stepFrom, stepTo          the window's steps (stepTo = stepFrom + windowSteps − 1)
//   n                         the window's current ledger entries (rollouts); ledgerSuccess: reward ≥ 0.9 among those
//                             with a reward (null when none has one); ledgerMeanReward likewise
//   audited                   { items, tickets } of the window's own audit
//   corrected                 { rate, lo, hi } or null; meanReward { ledger, corrected, lo, hi } or null
//   pooled                    PPV/NPV (and the reward difference) come from a wider window: evidence { stepFrom, stepTo,
//                             items, tickets } says which
//   thin                      why corrected (or meanReward) is null: the audit is too thin even pooled
//
// Which reviews count: those of the agreement report (lib/agreement/pairs.ts primaryPairs): per audit item, its first
// current (not superseded) review that counts (excluded_reason null, lib/review/blind.ts), when the ledger entry it was
// compared with has a reward. Excluded reviews never count. The ledger side of a window is a census of its current
// entries (step_rollups); PPV, NPV and the difference are measured on the entries the items were sampled with.
//
// Pooling: when a window's own audit is thin (THIN in lib/stats/corrected-rate.ts), its neighbours on the grid are
// added, one window each side at a time, up to POOL_RADIUS each side (so at most 2·POOL_RADIUS + 1 windows); the
// first radius that is not thin is used. The window's own ledger share is what is corrected, always.
import type { Db } from "@/lib/db/client.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { windowStart } from "@/lib/monitors/audit.ts";
import { runFingerprints } from "@/lib/monitors/data.ts";
import { processCache } from "@/lib/db/fingerprint-cache.ts";
import { resolveThresholds } from "@/lib/monitors/schema.ts";
import { SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";
import {
  correctedMeanReward,
  correctedSuccessRate,
  thinReason,
  type AuditedVerdict,
  type BootstrapSettings,
} from "@/lib/stats/corrected-rate.ts";

/** Windows added on each side of a thin window before giving up. */
export const POOL_RADIUS = 2;
/** Bootstrap resamples per window; the seed is this constant plus the window's first step, so a window never moves. */
const ITERATIONS = 1000;
const SEED = 20261201;

export type CorrectedWindow = {
  stepFrom: number;
  stepTo: number;
  n: number;
  ledgerSuccess: number | null;
  ledgerMeanReward: number | null;
  audited: { items: number; tickets: number };
  corrected: { rate: number; lo: number; hi: number } | null;
  meanReward: { ledger: number; corrected: number; lo: number; hi: number } | null;
  pooled: boolean;
  evidence: { stepFrom: number; stepTo: number; items: number; tickets: number };
  thin?: string;
};

export type CorrectedCurve = { runId: string; windowSteps: number; windows: CorrectedWindow[] };

/** A window's ledger counters (step_rollups pooled over its steps). */
export type LedgerWindow = { stepFrom: number; rollouts: number; rewarded: number; success: number; rewardSum: number };

/** An audited rollout on the step axis. */
export type AuditedStep = AuditedVerdict & { step: number };

/**
 * The curve from the window counters and the audited rollouts (pure; the data function below reads them). Windows
 * without ledger entries are absent.
 */
export function buildCorrectedWindows(
  ledger: readonly LedgerWindow[],
  audited: readonly AuditedStep[],
  width: number,
  bootstrap: BootstrapSettings = {},
): CorrectedWindow[] {
  const byWindow = new Map<number, AuditedStep[]>();
  for (const a of audited) {
    const w = windowStart(a.step, width);
    byWindow.set(w, [...(byWindow.get(w) ?? []), a]);
  }
  const around = (start: number, radius: number) => {
    const out: AuditedStep[] = [];
    for (let k = -radius; k <= radius; k++) out.push(...(byWindow.get(start + k * width) ?? []));
    return out;
  };
  return [...ledger]
    .filter((l) => l.rollouts > 0)
    .sort((a, b) => a.stepFrom - b.stepFrom)
    .map((l) => {
      const own = byWindow.get(l.stepFrom) ?? [];
      let radius = 0;
      const ledgerSuccess = l.rewarded > 0 ? l.success / l.rewarded : null;
      while (radius < POOL_RADIUS && thinReason(around(l.stepFrom, radius), ledgerSuccess) !== null) radius++;
      const evidence = around(l.stepFrom, radius);
      const ledgerMeanReward = l.rewarded > 0 ? Math.min(1, Math.max(0, l.rewardSum / l.rewarded)) : null;
      const settings = { iterations: ITERATIONS, seed: SEED + l.stepFrom, ...bootstrap };
      const rate = ledgerSuccess === null ? null : correctedSuccessRate(ledgerSuccess, evidence, settings);
      const mean = ledgerMeanReward === null ? null : correctedMeanReward(ledgerMeanReward, evidence, settings);
      // The steps the evidence can come from: the run has none before step 0, so the span is clipped there.
      const span = {
        stepFrom: Math.max(0, l.stepFrom - radius * width),
        stepTo: l.stepFrom + (radius + 1) * width - 1,
      };
      const reasons = [
        rate && !rate.ok ? rate.reason : null,
        mean && !mean.ok && (!rate || rate.ok) ? mean.reason : null,
        ledgerSuccess === null ? "no ledger entry of the window has a reward" : null,
      ].filter((r): r is string => r !== null);
      const pooledText = radius > 0 ? ` (pooled over steps ${span.stepFrom}–${span.stepTo})` : "";
      return {
        stepFrom: l.stepFrom,
        stepTo: l.stepFrom + width - 1,
        n: l.rollouts,
        ledgerSuccess,
        ledgerMeanReward,
        audited: { items: own.length, tickets: new Set(own.map((a) => a.ticket)).size },
        corrected: rate?.ok ? { rate: rate.rate, lo: rate.lo, hi: rate.hi } : null,
        meanReward: mean?.ok ? { ledger: mean.ledger, corrected: mean.corrected, lo: mean.lo, hi: mean.hi } : null,
        pooled: radius > 0,
        evidence: { ...span, items: evidence.length, tickets: new Set(evidence.map((a) => a.ticket)).size },
        ...(reasons.length ? { thin: `${reasons.join("; ")}${pooledText}` } : {}),
      };
    });
}

/** The run's ledger counters per window of `width` steps, from its step rollups (O(steps)). */
export async function listLedgerWindows(runId: string, width: number, client: Db = readDb()): Promise<LedgerWindow[]> {
  const [r] = await client.$queryRaw<{ rows: [number, number, number, number, number][] }[]>`
    select coalesce(json_agg(json_build_array(b, rollouts, rewarded, success, reward_sum) order by b), '[]') as rows
      from (select (step / ${width}::int) * ${width}::int as b, sum(rollouts) as rollouts, sum(rewarded) as rewarded,
                   sum(success) as success, sum(reward_sum) as reward_sum
              from step_rollups where run_id = ${runId} group by 1) w`;
  return r.rows.map(([stepFrom, rollouts, rewarded, success, rewardSum]) => ({
    stepFrom,
    rollouts,
    rewarded,
    success,
    rewardSum,
  }));
}

/**
 * The run's audited rollouts as the agreement report counts them: each audit item once, through its first current
 * review that counts, when its ledger entry has a reward; in step order. O(reviews of the run).
 */
export async function listAuditedSteps(runId: string, client: Db = readDb()): Promise<AuditedStep[]> {
  const rows = await client.$queryRaw<
    { ticket_id: string; inclusion_prob: number; step: number; ledger_reward: number; human_reward: number }[]
  >`
    -- The reviews first, then their entries from the run (on Citus the audit tables stay on the coordinator and
    -- the ledger is distributed: its rows are read from the run's shard with the items' keys).
    with r as materialized (
      select i.id, i.ticket_id, i.inclusion_prob, i.ledger_id, r.reward
        from audit_batches b
        join audit_items i on i.batch_id = b.id
        join lateral (
          select v.reward from reviews v
           where v.item_id = i.id and v.excluded_reason is null -- only blind reviews count (lib/review/blind.ts)
             and not exists (select 1 from reviews s where s.supersedes_id = v.id)
           order by v.id limit 1) r on true
       where b.run_id = ${runId})
    select r.ticket_id, r.inclusion_prob, l.step, l.reward as ledger_reward, r.reward as human_reward
      from r join ledger l on l.run_id = ${runId} and l.id = r.ledger_id
     where l.reward is not null
     order by l.step, r.id`;
  return rows.map((r) => ({
    ticket: r.ticket_id,
    step: r.step,
    ledger: r.ledger_reward >= SUCCESS_THRESHOLD,
    human: r.human_reward >= SUCCESS_THRESHOLD,
    ledgerReward: r.ledger_reward,
    humanReward: r.human_reward,
    inclusionProbability: r.inclusion_prob,
  }));
}

/**
 * The corrected curve of a run, in windows of `windowSteps` (default: the run's audit window threshold, as the audit
 * chart). null when there is no such run. Throws a RangeError on a window that is not a positive integer.
 */
export async function correctedCurve(
  client: Db,
  runId: string,
  opts: { windowSteps?: number; bootstrap?: BootstrapSettings } = {},
): Promise<CorrectedCurve | null> {
  // The bootstrap is most of the cost (about 1 s at 10,000 reviews) and the run page asks for the curve twice (its
  // chart and its gate): the curve is reused while the run's rollups, current reviews and thresholds are unchanged.
  if (opts.bootstrap) return computeCorrectedCurve(client, runId, opts);
  const fingerprint = (await runFingerprints([runId], client)).get(runId) ?? null;
  const key = JSON.stringify([runId, opts.windowSteps ?? null]);
  return curves.get(client, key, fingerprint, () => computeCorrectedCurve(client, runId, opts));
}

const curves = processCache<CorrectedCurve | null>("corrected-curve", { maxEntries: 64 });

async function computeCorrectedCurve(
  client: Db,
  runId: string,
  opts: { windowSteps?: number; bootstrap?: BootstrapSettings },
): Promise<CorrectedCurve | null> {
  const run = await client.run.findUnique({ where: { id: runId }, select: { thresholds: true } });
  if (!run) return null;
  const windowSteps = opts.windowSteps ?? resolveThresholds(run.thresholds).thresholds.auditWindow;
  if (!Number.isInteger(windowSteps) || windowSteps < 1 || windowSteps > 1_000_000_000)
    throw new RangeError(`windowSteps must be a positive integer, got ${windowSteps}`);
  const [ledger, audited] = await Promise.all([
    listLedgerWindows(runId, windowSteps, client),
    listAuditedSteps(runId, client),
  ]);
  return { runId, windowSteps, windows: buildCorrectedWindows(ledger, audited, windowSteps, opts.bootstrap) };
}
