// Revising a case (docs/cases.md). `reviseCase` appends the next version of a case (the cases row advances to it) with
// its author, reason, what it answers and the activity-log entry, in one transaction; `rescoreTicket` scores the
// ticket's rollouts again under the current version (new superseding ledger entries that record it, history
// intact); `applyCaseRevision` is both, as the workbench's Apply and `verity case revise` do.
//
// Every revision takes LEDGER_WRITE_LOCK, like each ingest and re-score batch: the version it reads is the latest,
// and an ingest batch never classifies a case line against a version being replaced.
import type pg from "pg";
import { appendActivitySql, type SqlActor } from "@/lib/cases/activity.ts";
import { configsByHash, getCase, ticketRollouts, type TicketRollout } from "@/lib/cases/data.ts";
import type { CaseDraft } from "@/lib/cases/schema.ts";
import { writeCaseVersion, type CaseAnswers } from "@/lib/ledger/store/case-version.ts";
import { checkout } from "@/lib/db/pool.ts";
import { caseRow } from "@/lib/ledger/store/rows.ts";
import { beginLedgerWriteAllRuns } from "@/lib/ledger/store/write-batch.ts";
import { runExists } from "@/lib/ledger/export.ts";
import { recordScoreChange } from "@/lib/ledger/score-change-marks.ts";
import { emptyRescoreCounts, RescoreTally, rescorePage, type RescoreSummary } from "@/lib/ledger/store/supersede.ts";
import type { ChangeListener } from "@/lib/ledger/store/changes.ts";
import { DEFAULT_CONFIG, configHash } from "@/lib/verifier/config.ts";
import { caseSchema, zodIssues, type Case, type Issue } from "@/lib/verifier/schema.ts";

export type ReviseInput = CaseDraft & {
  ticketId: string;
  reason: string;
  authorId?: number | null;
  /** Who the activity log names; by default the author's email, else "cli". */
  actor?: SqlActor;
  answers?: CaseAnswers;
  /** The run whose rollouts the caller re-scores under the new version: it must exist, or nothing is saved. */
  runId?: string;
};

export type ReviseResult =
  | { ok: true; status: "created" | "unchanged"; version: number; contentHash: string }
  | { ok: false; code: "not_found" | "invalid"; issues: Issue[] };

/**
 * The case a draft makes of the stored one: the parts it gives replace the current version's, and the result is
 * validated as a whole case (errors with their path in the case: `verifier_spec.required_writes.0.tool`). The
 * ticket's id and category cannot change: ledger entries are filed under both.
 */
export function draftCase(current: Case, draft: CaseDraft): { ok: true; doc: Case } | { ok: false; issues: Issue[] } {
  const candidate = {
    kind: "case",
    ticket: draft.ticket === undefined ? current.ticket : draft.ticket,
    env_snapshot: draft.snapshot === undefined ? current.env_snapshot : draft.snapshot,
    verifier_spec: draft.spec === undefined ? current.verifier_spec : draft.spec,
  };
  const parsed = caseSchema.safeParse(candidate);
  if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error) };
  const doc = parsed.data;
  if (doc.ticket.id !== current.ticket.id)
    return {
      ok: false,
      issues: [{ path: "ticket.id", message: `a revision of ${current.ticket.id} cannot change the ticket id` }],
    };
  if (doc.ticket.category !== current.ticket.category)
    return {
      ok: false,
      issues: [
        {
          path: "ticket.category",
          message: `a revision cannot change the category (${JSON.stringify(current.ticket.category)}): the ledger files entries under it`,
        },
      ],
    };
  return { ok: true, doc };
}

/** Appends the next version of a case, unless the draft makes the current version again (then `unchanged`). */
export async function reviseCase(pool: pg.Pool, input: ReviseInput): Promise<ReviseResult> {
  const reason = input.reason.trim();
  if (!reason)
    return { ok: false, code: "invalid", issues: [{ path: "reason", message: "a revision needs a reason" }] };
  const client = await checkout(pool);
  let failed: Error | undefined;
  try {
    await beginLedgerWriteAllRuns(client);
    const r = await reviseLocked(client, input, reason);
    await client.query(r.ok && r.status === "created" ? "commit" : "rollback");
    return r;
  } catch (err) {
    failed = err as Error;
    await client.query("rollback").catch(() => undefined);
    throw err;
  } finally {
    client.release(failed);
  }
}

async function reviseLocked(client: pg.PoolClient, input: ReviseInput, reason: string): Promise<ReviseResult> {
  const current = await getCase(client, input.ticketId, true);
  if (!current)
    return { ok: false, code: "not_found", issues: [{ path: "ticket", message: `no case ${input.ticketId}` }] };
  // A version saved for a run that is not there would re-score nothing: the case would run ahead of its ledger.
  if (input.runId !== undefined && !(await runExists(client, input.runId)))
    return {
      ok: false,
      code: "not_found",
      issues: [{ path: "run", message: `no run ${JSON.stringify(input.runId)}: nothing was saved or re-scored` }],
    };
  const next = draftCase(current.doc, input);
  if (!next.ok) return { ok: false, code: "invalid", issues: next.issues };
  const row = caseRow(next.doc);
  if (row.content_hash === current.contentHash)
    return { ok: true, status: "unchanged", version: current.version, contentHash: current.contentHash };
  const version = current.version + 1;
  await writeCaseVersion(client, row, version, { reason, authorId: input.authorId, answers: input.answers });
  await appendActivitySql(client, {
    actor: input.actor ?? (input.authorId ? { userId: input.authorId } : { label: "cli" }),
    action: "case.revise",
    target: { type: "case", id: input.ticketId },
    details: {
      version,
      previous_version: current.version,
      content_hash: row.content_hash,
      reason,
      answers_adjudication_ids: (input.answers?.adjudicationIds ?? []).map(String),
      answers_cluster: input.answers?.cluster ?? null,
    },
  });
  return { ok: true, status: "created", version, contentHash: row.content_hash };
}

export type TicketRescoreSummary = Omit<RescoreSummary, "run_id" | "config_hash"> & {
  ticket_id: string;
  case_version: number;
  runs: string[];
};

/**
 * Scores the ticket's rollouts (one run or all) again under the case's current version, each under the config its
 * current entry was scored with (the default for one without, or with a config no longer known). Entries whose score
 * or case version changes are superseded; the rest are counted unchanged.
 */
export async function rescoreTicket(
  pool: pg.Pool,
  opts: { ticketId: string; runId?: string; after?: ChangeListener },
): Promise<TicketRescoreSummary | null> {
  const current = await getCase(pool, opts.ticketId);
  if (!current) return null;
  const configs = await configsByHash(pool);
  const tallies = new Map<string, RescoreTally>();
  const after = opts.after;
  try {
    for await (const page of ticketRollouts(pool, opts.ticketId, { runId: opts.runId })) {
      const runId = page[0].run_id;
      let tally = tallies.get(runId);
      if (!tally) tallies.set(runId, (tally = new RescoreTally(runId, configHash(DEFAULT_CONFIG))));
      const scoring = {
        caseOf: () => current,
        configOf: (r: TicketRollout) => (r.config_hash && configs.get(r.config_hash)) || DEFAULT_CONFIG,
      };
      if ((await rescorePage(pool, runId, page, tally, scoring)) > 0) after?.committed([runId]);
    }
  } finally {
    await after?.settle();
  }
  for (const tally of tallies.values())
    await recordScoreChange(pool, tally, {
      kind: "case_version",
      ticketId: opts.ticketId,
      caseVersion: current.version,
    });
  return mergeTallies(
    opts.ticketId,
    current.version,
    [...tallies.values()].map((t) => t.finish()),
  );
}

function mergeTallies(ticketId: string, version: number, runs: RescoreSummary[]): TicketRescoreSummary {
  const out: TicketRescoreSummary = {
    ticket_id: ticketId,
    case_version: version,
    runs: runs.map((r) => r.run_id),
    ...emptyRescoreCounts(),
  };
  const counts = [
    "rollouts",
    "rescored",
    "reward_changed",
    "added",
    "unchanged",
    "skipped_external",
    "skipped_no_case",
    "crossed_up",
    "crossed_down",
  ] as const;
  let before = 0;
  let after = 0;
  for (const r of runs) {
    for (const k of counts) out[k] += r[k];
    // Means weighted by the re-scored entries each run's mean is over (the same n on both sides).
    before += (r.mean_before ?? 0) * r.rescored;
    after += (r.mean_after ?? 0) * r.rescored;
    for (const t of r.transitions) {
      const m = out.transitions.find((x) => x.from === t.from && x.to === t.to);
      if (m) m.n += t.n;
      else out.transitions.push({ ...t });
    }
  }
  if (out.rescored) Object.assign(out, { mean_before: before / out.rescored, mean_after: after / out.rescored });
  out.transitions.sort((a, b) => b.n - a.n || String(a.from).localeCompare(String(b.from)));
  return out;
}

export type ApplyResult =
  | { ok: true; status: "created" | "unchanged"; version: number; contentHash: string; rescore: TicketRescoreSummary }
  | Extract<ReviseResult, { ok: false }>;

/** A draft to save as a case's next version, and the ticket's rollouts to re-score under it (one run or all). */
export type CaseRevisionInput = {
  ticketId: string;
  draft: CaseDraft;
  reason: string;
  authorId?: number | null;
  actor?: SqlActor;
  answers?: CaseAnswers;
  runId?: string;
  after?: ChangeListener;
};

/**
 * Saves the draft as the case's next version and re-scores the ticket's rollouts under it (one run or all); the
 * activity log records the revision (`case.revise`) and the re-score with what moved (`case.rescore`). An identical
 * draft stores nothing, and the re-score then brings entries still scored under an older version up to date.
 */
export async function applyCaseRevision(pool: pg.Pool, input: CaseRevisionInput): Promise<ApplyResult> {
  const revised = await reviseCase(pool, { ...input.draft, ...input });
  if (!revised.ok) return revised;
  const rescore = (await rescoreTicket(pool, { ticketId: input.ticketId, runId: input.runId, after: input.after }))!;
  const client = await checkout(pool);
  try {
    await appendActivitySql(client, {
      actor: input.actor ?? (input.authorId ? { userId: input.authorId } : { label: "cli" }),
      action: "case.rescore",
      target: { type: "case", id: input.ticketId },
      details: {
        version: revised.version,
        run: input.runId ?? null,
        rollouts: rescore.rollouts,
        rescored: rescore.rescored,
        reward_changed: rescore.reward_changed,
        crossed_up: rescore.crossed_up,
        crossed_down: rescore.crossed_down,
      },
    });
  } finally {
    client.release();
  }
  return { ...revised, rescore };
}
