// The spec workbench's page data (/cases/[ticket]?rollout=ID): the case's current version, its history, the runs
// holding its rollouts, and the selected rollout's current entry. The page checks the role first.
import { z } from "zod";
import {
  answeredAdjudication,
  getCase,
  listCaseVersions,
  type CaseVersionRow,
  type StoredCase,
} from "@/lib/cases/data.ts";
import { int8Digits } from "@/lib/db/column-ranges.ts";
import { bulkPool } from "@/lib/db/pool.ts";

// Both are int8 ids; one that is not (or past the column's maximum) selects nothing.
const id = int8Digits("not an id")
  .regex(/^[1-9]/)
  .optional()
  .catch(undefined);
export const workbenchSearchSchema = z.object({ rollout: id, adjudication: id });

export type Workbench = {
  stored: StoredCase;
  versions: CaseVersionRow[];
  runs: { runId: string; rollouts: number }[];
  selected: { rolloutId: string; runId: string; trajectoryId: string; reward: number | null } | null;
  /** The adjudication the page was opened from (checked: it is about this ticket); Apply records it as answered. */
  answers: { adjudicationId: string } | { error: string } | null;
};

/** Whether a case is stored for the ticket (the workbench's layout answers 404 before its page streams). */
export async function caseExists(ticketId: string): Promise<boolean> {
  const { rowCount } = await bulkPool().query("select 1 from cases where ticket_id = $1", [ticketId]);
  return (rowCount ?? 0) > 0;
}

export async function loadWorkbench(ticketId: string, search: Record<string, unknown>): Promise<Workbench | null> {
  const pool = bulkPool();
  const stored = await getCase(pool, ticketId);
  if (!stored) return null;
  const { rollout, adjudication } = workbenchSearchSchema.parse({
    rollout: typeof search.rollout === "string" ? search.rollout : undefined,
    adjudication: typeof search.adjudication === "string" ? search.adjudication : undefined,
  });
  const [versions, runs, selected, answered] = await Promise.all([
    listCaseVersions(pool, ticketId),
    // Through the ledger's ticket index (one probe per run partition); a rollout without an entry is not counted.
    pool.query<{ run_id: string; n: number }>(
      "select run_id, count(*)::int as n from ledger where ticket_id = $1 and is_current group by run_id order by run_id",
      [ticketId],
    ),
    rollout
      ? pool.query<{ run_id: string; trajectory_id: string; reward: number | null }>(
          `select run_id, trajectory_id, reward from ledger
            where ticket_id = $1 and rollout_id = $2::bigint and is_current limit 1`,
          [ticketId, rollout],
        )
      : null,
    adjudication ? answeredAdjudication(pool, BigInt(adjudication), ticketId) : null,
  ]);
  const s = selected?.rows[0];
  return {
    stored,
    versions,
    runs: runs.rows.map((r) => ({ runId: r.run_id, rollouts: r.n })),
    selected: s ? { rolloutId: rollout!, runId: s.run_id, trajectoryId: s.trajectory_id, reward: s.reward } : null,
    answers: answered ? (answered.ok ? { adjudicationId: adjudication! } : { error: answered.error }) : null,
  };
}
