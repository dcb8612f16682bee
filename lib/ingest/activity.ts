// The activity-log entry of a load into the ledger: an API ingest (by its token), `verity ingest` and
// `verity import jsonl|tau2` (by "cli"), with the counts of what was read, stored, already there, refused and scored,
// and the run when the load named one. Written by the caller once the load is over, through the load's own pg pool.
import type pg from "pg";
import { appendActivityLogSql, type ActivityActor } from "@/lib/auth/activity-log.ts";
import type { IngestSummary } from "@/lib/ingest/schema.ts";

export type LoadAction = "ingest.api" | "ingest.cli" | "import.jsonl" | "import.tau2";

/** The counts an entry keeps of an ingest summary (never its rejected lines' contents). */
export function ingestCounts(s: IngestSummary): Record<string, number | boolean | string> {
  return {
    ok: s.ok,
    lines: s.lines,
    accepted: s.accepted,
    unchanged: s.unchanged,
    rejected: s.rejected,
    scored: s.scored,
    unscored: s.unscored,
    cases: s.by_kind.case.accepted,
    rollouts: s.by_kind.rollout.accepted,
    scores: s.by_kind.score.accepted,
    ...(s.failed_at ? { failed_at: s.failed_at } : {}),
  };
}

/**
 * Records one load. A load stopped because the database went away is not recorded (the entry could not be written
 * either); its caller still reports the summary.
 */
export async function recordLoad(
  pool: pg.Pool,
  load: {
    actor: ActivityActor;
    action: LoadAction;
    run?: string;
    stoppedAt?: string;
    details: Record<string, number | boolean | string>;
  },
): Promise<void> {
  if (load.stoppedAt === "database") return;
  await appendActivityLogSql(pool, {
    actor: load.actor,
    action: load.action,
    target: load.run ? { type: "run", id: load.run } : undefined,
    details: load.details,
  });
}
