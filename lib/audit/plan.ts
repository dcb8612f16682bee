// The audit planner's inputs from what the run's reviews already say (expected agreement overall and per stratum,
// the intra-ticket correlation), and the plan for a batch's window: shared by the batch form and `verity sample --plan`.
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { primaryPairs } from "@/lib/agreement/pairs.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";
import type { BatchPreview } from "@/lib/audit/data.ts";
import { NO_GUARDRAIL } from "@/lib/audit/sampler.ts";
import type { ResolvedBatchParams } from "@/lib/audit/schema.ts";
import type { Db } from "@/lib/auth/activity-log.ts";
import { scoresAgree } from "@/lib/stats/agreement.ts";
import {
  DEFAULT_EXPECTED_AGREEMENT,
  DEFAULT_INTRA_TICKET_CORRELATION,
  intraTicketCorrelation,
  MIN_ICC_TICKETS,
  planAudit,
  plannedAgreement,
  type AuditPlan,
} from "@/lib/stats/audit-plan.ts";

export type PlanEvidence = {
  /** Reviewed items of the run (primary reviews). */
  reviewed: number;
  /** Their agreement rate; null without reviews. */
  agreement: number | null;
  perStratum: Map<string, { k: number; n: number }>;
  /** ρ estimated from tickets with two or more reviewed items; null when fewer than MIN_ICC_TICKETS such tickets. */
  icc: number | null;
  iccTickets: number;
};

/** What the run's existing reviews say about agreement and its clustering by ticket. */
export async function loadPlanEvidence(runId: string, client?: Db): Promise<PlanEvidence> {
  const f = agreementFilterSchema.parse({ run: runId });
  const pairs = primaryPairs(await loadAgreementItems(f, client, { lean: true }));
  const perStratum = new Map<string, { k: number; n: number }>();
  const byTicket = new Map<string, boolean[]>();
  let k = 0;
  for (const p of pairs) {
    const ok = scoresAgree(p.human.reward, p.ledger.reward, f.tolerance);
    if (ok) k++;
    const s = p.i.item.stratum ?? p.ledger.decidingGuardrail ?? NO_GUARDRAIL;
    const t = perStratum.get(s) ?? { k: 0, n: 0 };
    t.n++;
    if (ok) t.k++;
    perStratum.set(s, t);
    byTicket.set(p.i.item.ticketId, [...(byTicket.get(p.i.item.ticketId) ?? []), ok]);
  }
  const clustered = [...byTicket.values()].filter((g) => g.length >= 2);
  return {
    reviewed: pairs.length,
    agreement: pairs.length ? k / pairs.length : null,
    perStratum,
    icc: clustered.length >= MIN_ICC_TICKETS ? intraTicketCorrelation(clustered) : null,
    iccTickets: clustered.length,
  };
}

export type BatchPlan = AuditPlan & {
  /** Where p and ρ came from, for the page and the CLI. */
  sources: { agreement: string; icc: string };
};

/**
 * The plan for a batch's window at one half-width. Expected agreement: the run's reviewed agreement (per stratum
 * when the stratum has 30 or more reviewed items, else the run's), or the documented default; ρ likewise.
 * `overrides` (from the CLI) replace either.
 */
export function planForBatch(
  params: ResolvedBatchParams,
  preview: BatchPreview,
  evidence: PlanEvidence,
  halfWidth: number,
  overrides: { agreement?: number; icc?: number } = {},
): BatchPlan {
  const agreement = overrides.agreement ?? evidence.agreement ?? DEFAULT_EXPECTED_AGREEMENT;
  const icc = overrides.icc ?? evidence.icc ?? DEFAULT_INTRA_TICKET_CORRELATION;
  const pop = preview.population;
  const itemsPerTicket = params.pick === "all" && pop.tickets > 0 ? pop.rollouts / pop.tickets : 1;
  const plan = planAudit({
    halfWidth,
    agreement,
    itemsPerTicket,
    icc,
    tickets: pop.tickets,
    strata: preview.sample.strata.map((s) => {
      const e = evidence.perStratum.get(s.stratum);
      return {
        stratum: s.stratum,
        tickets: s.tickets,
        agreement: e && e.n >= 30 ? plannedAgreement(e.k, e.n) : agreement,
      };
    }),
  });
  return {
    ...plan,
    sources: {
      agreement:
        overrides.agreement !== undefined
          ? "given"
          : evidence.agreement !== null
            ? `the run's ${evidence.reviewed} reviewed items`
            : `default ${DEFAULT_EXPECTED_AGREEMENT} (no reviews yet)`,
      icc:
        overrides.icc !== undefined
          ? "given"
          : evidence.icc !== null
            ? `measured over ${evidence.iccTickets} tickets with two or more reviewed items`
            : `default ${DEFAULT_INTRA_TICKET_CORRELATION} (${evidence.iccTickets} tickets with two or more reviewed items; ${MIN_ICC_TICKETS} needed to measure it)`,
    },
  };
}
