// The re-score writer: one batch of new scores of a run's rollouts becomes new ledger entries superseding the current
// ones (append-only: the old entry's is_current flips in the same transaction, with the rollups), counted as it goes.
// Its callers (lib/ledger/mutations.ts rescoreRun, lib/cases/mutations.ts rescoreTicket) choose the rollouts and the
// config; entries computed elsewhere (source external) are left alone.
import type pg from "pg";
import { checkout } from "@/lib/db/pool.ts";
import { withTrainedReward, type LedgerEntryRows } from "@/lib/ledger/store/ledger-rows.ts";
import { RollupDelta, type RollupEntry } from "@/lib/ledger/store/rollups.ts";
import { ledgerEntryRows } from "@/lib/ledger/store/ledger-rows.ts";
import { rolloutFromColumns, type RolloutRowDb } from "@/lib/ledger/store/rows.ts";
import { SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";
import type { VerifierConfig } from "@/lib/verifier/config.ts";
import type { Case } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";
import { allocateIds, beginLedgerWrite, insertLedgerEntries, type NewEntry } from "@/lib/ledger/store/write-batch.ts";

export type GuardrailTransition = { from: string | null; to: string | null; n: number };

export type RescoreSummary = {
  run_id: string;
  config_hash: string;
  /** Rollouts of the run looked at. */
  rollouts: number;
  /** New entries that superseded the current one (every verifier entry, when the config changed: the config hash
   * is part of the record). */
  rescored: number;
  /** Of those, the ones whose reward differs. */
  reward_changed: number;
  /** Rollouts without a current entry before (their case arrived after them) that now have one. */
  added: number;
  /** The new score equals the current entry: nothing written. */
  unchanged: number;
  skipped_external: number;
  skipped_no_case: number;
  /** Superseded entries below 0.9 whose new entry is at or above it, and the reverse. */
  crossed_up: number;
  crossed_down: number;
  mean_before: number | null;
  mean_after: number | null;
  /** How the deciding guardrail moved, over re-scored entries where it changed (null = no guardrail). */
  transitions: GuardrailTransition[];
};

type CurrentRow = RollupEntry & {
  id: string;
  trajectory_id: string;
  content_hash: string;
  trained_reward: number | null;
  case_version: number | null;
};

/** A rollout's new score, before it is compared with the rollout's current entry. */
export type FreshEntry = {
  rolloutId: string;
  rows: LedgerEntryRows;
  category: string;
  /** The rollout's own trained reward (a first entry takes it; a superseding one keeps its predecessor's). */
  trained: number | null;
  /** The case version that scored it. */
  caseVersion: number | null;
};

/** A re-score's figures before it has counted anything (one run's tally, or the sum over a ticket's runs). */
export function emptyRescoreCounts(): Omit<RescoreSummary, "run_id" | "config_hash"> {
  return {
    rollouts: 0,
    rescored: 0,
    reward_changed: 0,
    added: 0,
    unchanged: 0,
    skipped_external: 0,
    skipped_no_case: 0,
    crossed_up: 0,
    crossed_down: 0,
    mean_before: null,
    mean_after: null,
    transitions: [],
  };
}

/** What a re-score counts as it goes (one per re-score, across its batches). */
export class RescoreTally {
  readonly summary: RescoreSummary;
  private readonly moves = new Map<string, GuardrailTransition>();
  private readonly before = { sum: 0, n: 0 };
  private readonly after = { sum: 0, n: 0 };
  /** Entries given another reward, per step: the steps the monitors mark (score_change_marks, 024). */
  readonly changedSteps = new Map<number, number>();

  constructor(runId: string, hash: string) {
    this.summary = { run_id: runId, config_hash: hash, ...emptyRescoreCounts() };
  }

  superseded(old: CurrentRow, next: LedgerEntryRows["values"]): void {
    const s = this.summary;
    s.rescored++;
    if (old.reward !== next.reward) {
      s.reward_changed++;
      this.changedSteps.set(old.step, (this.changedSteps.get(old.step) ?? 0) + 1);
    }
    if (old.reward !== null) Object.assign(this.before, { sum: this.before.sum + old.reward, n: this.before.n + 1 });
    if (next.reward !== null) Object.assign(this.after, { sum: this.after.sum + next.reward, n: this.after.n + 1 });
    const wasOk = old.reward !== null && old.reward >= SUCCESS_THRESHOLD;
    const isOk = next.reward !== null && next.reward >= SUCCESS_THRESHOLD;
    if (!wasOk && isOk) s.crossed_up++;
    if (wasOk && !isOk) s.crossed_down++;
    if (old.deciding_guardrail !== next.deciding_guardrail) {
      const key = `${old.deciding_guardrail}>${next.deciding_guardrail}`;
      const m = this.moves.get(key) ?? { from: old.deciding_guardrail, to: next.deciding_guardrail, n: 0 };
      m.n++;
      this.moves.set(key, m);
    }
  }

  finish(): RescoreSummary {
    const s = this.summary;
    s.mean_before = this.before.n ? this.before.sum / this.before.n : null;
    s.mean_after = this.after.n ? this.after.sum / this.after.n : null;
    s.transitions = [...this.moves.values()].sort((a, b) => b.n - a.n || String(a.from).localeCompare(String(b.from)));
    return s;
  }
}

/**
 * Writes one batch of new scores of a run's rollouts, in one transaction under the ledger lock: each whose score (or
 * the case version that scored it) differs from its current entry becomes a new entry superseding it, with the
 * rollups; external entries are left alone. Returns the number of entries written.
 */
export async function supersedeEntries(
  pool: pg.Pool,
  runId: string,
  freshOf: Map<string, FreshEntry>,
  tally: RescoreTally,
): Promise<number> {
  const summary = tally.summary;
  const client = await checkout(pool);
  try {
    await beginLedgerWrite(client, [runId]);
    const cur = await client.query<CurrentRow>(
      `select id::text as id, trajectory_id, content_hash, run_id, step, group_id, status::text as status,
              source::text as source, reward, raw_reward, capped, handoff, guardrail_mask, deciding_guardrail,
              trained_reward, case_version
         from ledger where run_id = $1 and trajectory_id = any($2::text[]) and is_current`,
      [runId, [...freshOf.keys()]],
    );
    const currentOf = new Map(cur.rows.map((c) => [c.trajectory_id, c]));
    const delta = new RollupDelta();
    const entries: NewEntry[] = [];
    const supersedes: (string | null)[] = [];
    const rolloutIds = new Map<string, string>();
    for (const [trajectoryId, fresh] of freshOf) {
      const old = currentOf.get(trajectoryId);
      if (old?.source === "external") {
        summary.skipped_external++;
        continue;
      }
      // The trainer's reward is not the verifier's to change: the new entry keeps the one of the entry it
      // supersedes (which may have come from a score record); a first entry takes its rollout's.
      const rows = withTrainedReward(fresh.rows, old ? old.trained_reward : fresh.trained);
      // An entry scored under another version of its case is superseded even when the score is the same, so the
      // ledger says which version each current entry answers to. (An entry that names no version keeps its place.)
      const otherVersion = old?.case_version != null && old.case_version !== fresh.caseVersion;
      if (old && old.content_hash === rows.content_hash && !otherVersion) {
        summary.unchanged++;
        continue;
      }
      entries.push({ rows, trajectoryId, category: fresh.category, caseVersion: fresh.caseVersion });
      supersedes.push(old?.id ?? null);
      rolloutIds.set(trajectoryId, fresh.rolloutId);
      if (!old) {
        summary.added++;
        continue;
      }
      delta.add(old, -1);
      tally.superseded(old, rows.values);
    }
    const superseded = supersedes.filter((s): s is string => s !== null);
    if (superseded.length) {
      const flipped = await client.query(
        "update ledger set is_current = false where run_id = $1 and id = any($2::bigint[]) and is_current",
        [runId, superseded],
      );
      if (flipped.rowCount !== superseded.length)
        throw new Error("the ledger changed under the re-score (an entry was superseded concurrently); run it again");
    }
    const ids = await allocateIds(client, 0, entries.length);
    await insertLedgerEntries(client, entries, ids.ledger, (t) => rolloutIds.get(t) ?? null, supersedes, delta);
    await client.query("commit");
    client.release();
    return entries.length;
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    client.release(err as Error);
    throw err;
  }
}

/** The case a re-score scores a rollout under. */
export type RescoreCase = { doc: Case; category: string; version: number };

/**
 * One page of a re-score: each rollout scored again under its case (`caseOf`; one without is counted as skipped) and
 * config (`configOf`), and the entries whose score or case version changes superseded (supersedeEntries). Returns
 * what supersedeEntries wrote.
 */
export async function rescorePage<R extends RolloutRowDb>(
  pool: pg.Pool,
  runId: string,
  rows: readonly R[],
  tally: RescoreTally,
  scoring: { caseOf: (r: R) => RescoreCase | undefined; configOf: (r: R) => VerifierConfig },
): Promise<number> {
  const freshOf = new Map<string, FreshEntry>();
  for (const r of rows) {
    const known = scoring.caseOf(r);
    if (!known) {
      tally.summary.skipped_no_case++;
      continue;
    }
    const entry = ledgerEntryRows(scoreRollout(rolloutFromColumns(r), known.doc, scoring.configOf(r)));
    if (entry.ok)
      freshOf.set(r.trajectory_id, {
        rolloutId: r.id,
        rows: entry.rows,
        category: known.category,
        trained: r.trained_reward,
        caseVersion: known.version,
      });
  }
  tally.summary.rollouts += rows.length;
  return supersedeEntries(pool, runId, freshOf, tally);
}
