// The bulk fix from a cluster (docs/audit.md): one spec change (lib/clusters/spec-change.ts) applied to the case of
// every ticket of a cluster. `dryRunBulkFix` scores every affected rollout under the changed specs and writes
// nothing; `applyBulkFix` saves each case's next version and re-scores its rollouts (lib/cases/mutations.ts), then
// fixes the spec defects of those cases and verifies the ones whose items now agree. Memory is bounded whatever the
// number of rollouts: the cases' dry-run yields one page of diffs at a time, and only totals, one row per ticket
// and a fixed number of example diffs are kept; progress is reported as the rollouts go by.
import type pg from "pg";
import { addToTotals, dryRunCase, type DryRunTotals, type RolloutDiff } from "@/lib/cases/dry-run.ts";
import { getCase } from "@/lib/cases/data.ts";
import { applyCaseRevision } from "@/lib/cases/mutations.ts";
import { applySpecChange, describeSpecChange, type SpecChange } from "@/lib/clusters/spec-change.ts";
import type { ActivityActor } from "@/lib/auth/activity-log.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { fixSpecDefects, verifyDefects } from "@/lib/defects/mutations.ts";
import type { Issue } from "@/lib/verifier/schema.ts";

export type BulkFixProgress = { ticketsDone: number; tickets: number; rollouts: number };

export type TicketDryRun = {
  ticketId: string;
  rollouts: number;
  rewardChanged: number;
  /** Mean reward of the rollouts' current entries and under the changed spec (null: no rewarded rollout). */
  meanBefore: number | null;
  meanAfter: number | null;
};

export type BulkDryRun = {
  change: string;
  totals: DryRunTotals;
  meanBefore: number | null;
  meanAfter: number | null;
  tickets: TicketDryRun[];
  /** Tickets whose changed spec is not valid, with why; nothing would be saved for them. */
  refused: { ticketId: string; issues: Issue[] }[];
  /** Tickets without a stored case. */
  missing: string[];
  /** The first `examples` diffs whose reward changes. */
  examples: RolloutDiff[];
};

const PROGRESS_EVERY = 1000;

/** What the change would do to every rollout of the tickets (one run, or all runs with `runId` unset). */
export async function dryRunBulkFix(
  pool: pg.Pool,
  input: {
    tickets: readonly string[];
    change: SpecChange;
    runId?: string;
    examples?: number;
    onProgress?: (p: BulkFixProgress) => void;
  },
): Promise<BulkDryRun> {
  const out: BulkDryRun = {
    change: describeSpecChange(input.change),
    totals: { rollouts: 0, rewardChanged: 0, nowAgree: 0, nowDisagree: 0 },
    meanBefore: null,
    meanAfter: null,
    tickets: [],
    refused: [],
    missing: [],
    examples: [],
  };
  const sums = { before: 0, nb: 0, after: 0, na: 0 };
  const keep = input.examples ?? 20;
  let next = PROGRESS_EVERY;
  for (const [i, ticketId] of input.tickets.entries()) {
    const current = await getCase(pool, ticketId);
    const r = current
      ? await dryRunCase(pool, {
          ticketId,
          draft: { spec: applySpecChange(current.doc.verifier_spec as Record<string, unknown>, input.change) },
          runId: input.runId,
        })
      : null;
    if (!r) out.missing.push(ticketId);
    else if (!r.ok) out.refused.push({ ticketId, issues: r.issues });
    else {
      const t = { ticketId, rollouts: 0, rewardChanged: 0, before: 0, nb: 0, after: 0, na: 0 };
      for await (const d of r.diffs) {
        out.totals = addToTotals(out.totals, d);
        t.rollouts++;
        if (d.rewardChanged) {
          t.rewardChanged++;
          if (out.examples.length < keep) out.examples.push(d);
        }
        if (d.before?.reward != null) Object.assign(t, { before: t.before + d.before.reward, nb: t.nb + 1 });
        if (d.after.reward !== null) Object.assign(t, { after: t.after + d.after.reward, na: t.na + 1 });
        if (out.totals.rollouts >= next) {
          next += PROGRESS_EVERY;
          input.onProgress?.({ ticketsDone: i, tickets: input.tickets.length, rollouts: out.totals.rollouts });
        }
      }
      Object.assign(sums, {
        before: sums.before + t.before,
        nb: sums.nb + t.nb,
        after: sums.after + t.after,
        na: sums.na + t.na,
      });
      out.tickets.push({
        ticketId,
        rollouts: t.rollouts,
        rewardChanged: t.rewardChanged,
        meanBefore: t.nb ? t.before / t.nb : null,
        meanAfter: t.na ? t.after / t.na : null,
      });
    }
  }
  input.onProgress?.({
    ticketsDone: input.tickets.length,
    tickets: input.tickets.length,
    rollouts: out.totals.rollouts,
  });
  out.meanBefore = sums.nb ? sums.before / sums.nb : null;
  out.meanAfter = sums.na ? sums.after / sums.na : null;
  return out;
}

export type BulkApply = {
  change: string;
  /** Versions saved, per ticket ("unchanged": the change made the current version again). */
  versions: { ticketId: string; version: number; status: "created" | "unchanged" }[];
  refused: { ticketId: string; issues: Issue[] }[];
  missing: string[];
  rollouts: number;
  rescored: number;
  rewardChanged: number;
  defectsFixed: number;
  defectsVerified: number;
};

/**
 * Saves the changed spec as each ticket's next case version (its reason, its author, and the cluster it answers)
 * and re-scores the ticket's rollouts (one run or all); then the spec defects of those cases are fixed by the new
 * versions and verified where their items now agree.
 */
export async function applyBulkFix(
  pool: pg.Pool,
  client: PrismaClient,
  input: {
    tickets: readonly string[];
    change: SpecChange;
    reason: string;
    cluster: string;
    authorId?: number | null;
    actor: ActivityActor;
    runId?: string;
    onProgress?: (p: BulkFixProgress) => void;
  },
): Promise<BulkApply> {
  const out: BulkApply = {
    change: describeSpecChange(input.change),
    versions: [],
    refused: [],
    missing: [],
    rollouts: 0,
    rescored: 0,
    rewardChanged: 0,
    defectsFixed: 0,
    defectsVerified: 0,
  };
  const runs = new Set<string>();
  for (const [i, ticketId] of input.tickets.entries()) {
    const current = await getCase(pool, ticketId);
    if (!current) {
      out.missing.push(ticketId);
      continue;
    }
    const r = await applyCaseRevision(pool, {
      ticketId,
      draft: { spec: applySpecChange(current.doc.verifier_spec as Record<string, unknown>, input.change) },
      reason: input.reason,
      authorId: input.authorId ?? null,
      actor: input.authorId ? { userId: input.authorId } : { label: "cli" },
      answers: { cluster: input.cluster },
      runId: input.runId,
    });
    if (!r.ok) {
      out.refused.push({ ticketId, issues: r.issues });
      continue;
    }
    out.versions.push({ ticketId, version: r.version, status: r.status });
    out.rollouts += r.rescore.rollouts;
    out.rescored += r.rescore.rescored;
    out.rewardChanged += r.rescore.reward_changed;
    for (const run of r.rescore.runs) runs.add(run);
    const fixed = await fixSpecDefects({ ticketId, version: r.version }, input.actor, client);
    out.defectsFixed += fixed.length;
    out.defectsVerified += fixed.filter((d) => d.status === "verified").length;
    input.onProgress?.({ ticketsDone: i + 1, tickets: input.tickets.length, rollouts: out.rollouts });
  }
  // Defects fixed earlier (by another version or a config) whose items this re-score brought into agreement.
  for (const run of runs) out.defectsVerified += (await verifyDefects({ runId: run }, client)).length;
  return out;
}
