// "Try it" (docs/cases.md): what a draft of a case would do to the ledger, rollout by rollout, writing nothing. Each
// of the ticket's rollouts is scored under the draft (with the config its current entry was scored with) and set
// beside its current entry: reward before and after, guardrails and reasons that appear or disappear, and each
// counted human review of it, compared with the entry before and the score after by the audit's own rule
// (compareWithLedger: reward beyond the batch tolerance, or another guardrail set). Pages of rollouts are read,
// scored and yielded one after another, so memory stays bounded by a page whatever the number of rollouts.
import type pg from "pg";
import { configsByHash, getCase, ticketRollouts } from "@/lib/cases/data.ts";
import { draftCase } from "@/lib/cases/mutations.ts";
import type { CaseDraft } from "@/lib/cases/schema.ts";
import { ledgerEntryRows } from "@/lib/ledger/store/ledger-rows.ts";
import { rolloutFromColumns } from "@/lib/ledger/store/rows.ts";
import { compareWithLedger, type ScoredSide } from "@/lib/review/compare.ts";
import { DIMENSIONS } from "@/lib/verifier/codes.ts";
import { DEFAULT_CONFIG, type VerifierConfig } from "@/lib/verifier/config.ts";
import type { RolloutRowDb } from "@/lib/ledger/store/rows.ts";
import type { Case, Claims, Issue, VerifierScoreRecord } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

export type ScoreSide = {
  status: string;
  reward: number | null;
  guardrails: string[];
  /** Reasons as labels: code, then the tool and field they name, if any ("write_missing refund_order"). */
  reasons: string[];
};

export type ReviewVerdict = {
  reviewId: string;
  reviewer: string;
  humanReward: number;
  /** Against the current entry; null when the rollout has none. */
  agreedBefore: boolean | null;
  agreesAfter: boolean;
};

export type RolloutDiff = {
  runId: string;
  rolloutId: string;
  trajectoryId: string;
  step: number;
  /** The current entry (null: the rollout has none yet); caseVersion null for an entry from outside. */
  before: (ScoreSide & { caseVersion: number | null; source: string }) | null;
  after: ScoreSide;
  rewardChanged: boolean;
  guardrails: { added: string[]; removed: string[] };
  reasons: { added: string[]; removed: string[] };
  reviews: ReviewVerdict[];
};

export type DryRunTotals = {
  rollouts: number;
  rewardChanged: number;
  /** Counted reviews that disagreed with the current entry and would agree with the draft's score, and the reverse. */
  nowAgree: number;
  nowDisagree: number;
};

type EntryRow = {
  trajectory_id: string;
  status: string;
  source: string;
  reward: number | null;
  outcome: number | null;
  policy: number | null;
  evidence: number | null;
  efficiency: number | null;
  communication: number | null;
  guardrails: { code: string }[];
  reasons: Record<string, unknown>[];
  claims: Claims | null;
  case_version: number | null;
};

type ReviewRow = {
  id: string;
  rollout_id: string;
  reviewer: string;
  reward: number;
  outcome: number;
  policy: number;
  evidence: number;
  efficiency: number;
  communication: number;
  guardrails: string[];
  claims: Claims;
  tolerance: number;
};

export function reasonLabel(r: Record<string, unknown>): string {
  return [r.code, r.tool, r.field].filter((x) => typeof x === "string" && x).join(" ");
}

function setChange(before: string[], after: string[]): { added: string[]; removed: string[] } {
  const b = new Set(before);
  const a = new Set(after);
  return { added: [...a].filter((x) => !b.has(x)), removed: [...b].filter((x) => !a.has(x)) };
}

/**
 * Validates the draft against the stored case; then, lazily, the diff of every rollout of the ticket (one run or all).
 * `null` when the ticket has no case.
 */
export async function dryRunCase(
  pool: pg.Pool,
  input: { ticketId: string; draft: CaseDraft; runId?: string; pageSize?: number },
): Promise<{ ok: true; doc: Case; diffs: AsyncGenerator<RolloutDiff> } | { ok: false; issues: Issue[] } | null> {
  const current = await getCase(pool, input.ticketId);
  if (!current) return null;
  const next = draftCase(current.doc, input.draft);
  if (!next.ok) return next;
  const configs = await configsByHash(pool);
  return { ok: true, doc: next.doc, diffs: diffPages(pool, input, next.doc, configs) };
}

async function* diffPages(
  pool: pg.Pool,
  input: { ticketId: string; runId?: string; pageSize?: number },
  doc: Case,
  configs: Map<string, VerifierConfig>,
): AsyncGenerator<RolloutDiff> {
  for await (const page of ticketRollouts(pool, input.ticketId, { runId: input.runId, pageSize: input.pageSize })) {
    yield* await diffRollouts(pool, page, (r) =>
      scoreRollout(rolloutFromColumns(r), doc, (r.config_hash && configs.get(r.config_hash)) || DEFAULT_CONFIG),
    );
  }
}

/**
 * The diff of one page of rollouts of one run, each scored by `score` (a draft case, a candidate config) and set
 * beside its current entry and its counted reviews. Shared by the workbench's Try it, the bulk fix and the verifier
 * config dry run (lib/verifier-configs/dry-run.ts). Writes nothing.
 */
export async function diffRollouts<R extends RolloutRowDb>(
  pool: pg.Pool,
  page: R[],
  score: (r: R) => VerifierScoreRecord,
): Promise<RolloutDiff[]> {
  if (page.length === 0) return [];
  const runId = page[0].run_id;
  const [entries, reviews] = await Promise.all([
    pool.query<EntryRow>(
      `select trajectory_id, status::text as status, source::text as source, reward, outcome, policy, evidence,
              efficiency, communication, guardrails, reasons, claims, case_version
         from ledger where run_id = $1 and trajectory_id = any($2::text[]) and is_current`,
      [runId, page.map((r) => r.trajectory_id)],
    ),
    pool.query<ReviewRow>(
      `select v.id::text as id, i.rollout_id::text as rollout_id, u.email as reviewer, v.reward, v.outcome, v.policy,
              v.evidence, v.efficiency, v.communication, v.guardrails, v.claims, b.tolerance
         from audit_items i join audit_batches b on b.id = i.batch_id join reviews v on v.item_id = i.id
         join users u on u.id = v.reviewer_id
        where i.run_id = $1 and i.rollout_id = any($2::bigint[]) and v.excluded_reason is null
          and not exists (select 1 from reviews s where s.supersedes_id = v.id)
        order by v.id`,
      [runId, page.map((r) => r.id)],
    ),
  ]);
  const entryOf = new Map(entries.rows.map((e) => [e.trajectory_id, e]));
  const reviewsOf = new Map<string, ReviewRow[]>();
  for (const r of reviews.rows) reviewsOf.set(r.rollout_id, [...(reviewsOf.get(r.rollout_id) ?? []), r]);
  return page.map((r) => {
    const scored = ledgerEntryRows(score(r));
    if (!scored.ok)
      throw new Error(`the dry run's score of ${r.trajectory_id} is not a valid entry: ${scored.message}`);
    const v = scored.rows.values;
    const afterSide: ScoredSide = {
      reward: v.reward,
      subscores: Object.fromEntries(DIMENSIONS.map((d) => [d, v[d]])) as ScoredSide["subscores"],
      guardrails: v.guardrails.map((g) => String(g.code)),
      claims: (v.claims as Claims | null) ?? null,
    };
    const after: ScoreSide = {
      status: v.status,
      reward: v.reward,
      guardrails: [...afterSide.guardrails],
      reasons: v.reasons.map(reasonLabel),
    };
    const e = entryOf.get(r.trajectory_id);
    const beforeSide: ScoredSide | null = e
      ? {
          reward: e.reward,
          subscores: Object.fromEntries(DIMENSIONS.map((d) => [d, e[d]])) as ScoredSide["subscores"],
          guardrails: e.guardrails.map((g) => g.code),
          claims: e.claims,
        }
      : null;
    const before = e
      ? {
          status: e.status,
          reward: e.reward,
          guardrails: beforeSide!.guardrails as string[],
          reasons: e.reasons.map(reasonLabel),
          caseVersion: e.case_version,
          source: e.source,
        }
      : null;
    return {
      runId,
      rolloutId: r.id,
      trajectoryId: r.trajectory_id,
      step: r.step,
      before,
      after,
      rewardChanged: (before?.reward ?? null) !== after.reward,
      guardrails: setChange(before?.guardrails ?? [], after.guardrails),
      reasons: setChange(before?.reasons ?? [], after.reasons),
      reviews: (reviewsOf.get(r.id) ?? []).map((rv) => {
        const human: ScoredSide = {
          reward: rv.reward,
          subscores: Object.fromEntries(DIMENSIONS.map((d) => [d, rv[d]])) as ScoredSide["subscores"],
          guardrails: rv.guardrails,
          claims: rv.claims,
        };
        return {
          reviewId: rv.id,
          reviewer: rv.reviewer,
          humanReward: rv.reward,
          agreedBefore: beforeSide ? !compareWithLedger(human, beforeSide, rv.tolerance).disagrees : null,
          agreesAfter: !compareWithLedger(human, afterSide, rv.tolerance).disagrees,
        };
      }),
    };
  });
}

/** Adds one diff to running totals (the workbench and the CLI show them above the rollouts). */
export function addToTotals(t: DryRunTotals, d: RolloutDiff): DryRunTotals {
  t.rollouts++;
  if (d.rewardChanged) t.rewardChanged++;
  for (const r of d.reviews) {
    if (r.agreedBefore === false && r.agreesAfter) t.nowAgree++;
    if (r.agreedBefore !== false && !r.agreesAfter) t.nowDisagree++;
  }
  return t;
}

/** What a dry run shows: the totals over every rollout, and at most `maxRows` rows (the selected one, then changed). */
export type DiffView = { totals: DryRunTotals; rows: RolloutDiff[]; truncated: boolean };

/**
 * Reads a dry run's diffs to the end, keeping the totals and a bounded page of rows: the selected rollout first,
 * then the ones that moved (another reward, a guardrail appearing or disappearing, or a review), then the rest.
 * Memory is bounded by `maxRows` whatever the number of rollouts.
 */
export async function collectDiffs(
  diffs: AsyncIterable<RolloutDiff>,
  opts: { maxRows: number; selected?: string; onDiff?: (d: RolloutDiff) => void },
): Promise<DiffView> {
  const totals: DryRunTotals = { rollouts: 0, rewardChanged: 0, nowAgree: 0, nowDisagree: 0 };
  const selected: RolloutDiff[] = [];
  const changed: RolloutDiff[] = [];
  const rest: RolloutDiff[] = [];
  for await (const d of diffs) {
    addToTotals(totals, d);
    opts.onDiff?.(d);
    const moved =
      d.rewardChanged || d.guardrails.added.length + d.guardrails.removed.length > 0 || d.reviews.length > 0;
    if (d.rolloutId === opts.selected) selected.push(d);
    else if (moved && changed.length < opts.maxRows) changed.push(d);
    else if (!moved && rest.length < opts.maxRows) rest.push(d);
  }
  const rows = [...selected, ...changed, ...rest].slice(0, opts.maxRows);
  return { totals, rows, truncated: totals.rollouts > rows.length };
}
