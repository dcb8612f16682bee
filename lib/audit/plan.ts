// The audit planner's inputs from what the run's reviews already say (expected agreement overall and per stratum,
// the intra-ticket correlation), and the plan for a batch's window: shared by the batch form and `verity sample --plan`.
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { primaryPairs } from "@/lib/agreement/pairs.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";
import type { BatchPreview } from "@/lib/audit/data.ts";
import { NO_GUARDRAIL } from "@/lib/audit/sampler.ts";
import type { ResolvedBatchParams } from "@/lib/audit/schema.ts";
import type { Db } from "@/lib/db/client.ts";
import { scoresAgree } from "@/lib/stats/agreement.ts";
import {
  DEFAULT_EXPECTED_AGREEMENT,
  DEFAULT_INTRA_TICKET_CORRELATION,
  designEffect,
  intraTicketCorrelation,
  intraTicketCorrelationInterval,
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
  /** ρ's 95% bootstrap interval over those tickets; null where ρ is not measured or the bootstrap cannot say. */
  iccInterval: { lower: number; upper: number } | null;
  iccTickets: number;
};

/** Seeded, so the same reviews always plan the same batch. */
const ICC_BOOTSTRAP = { seed: 20261206, iterations: 1000 } as const;

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
  const measured = clustered.length >= MIN_ICC_TICKETS;
  const iv = measured ? intraTicketCorrelationInterval(clustered, ICC_BOOTSTRAP) : null;
  return {
    reviewed: pairs.length,
    agreement: pairs.length ? k / pairs.length : null,
    perStratum,
    icc: measured ? intraTicketCorrelation(clustered) : null,
    iccInterval: iv && { lower: iv.lower, upper: iv.upper },
    iccTickets: clustered.length,
  };
}

export type BatchPlan = AuditPlan & {
  /** Where p and ρ came from, for the page and the CLI. */
  sources: { agreement: string; icc: string };
  /**
   * ρ as measured, with its 95% interval and the design effects at both ends, when the plan is for the interval's
   * upper end (`icc` is then that end); null when ρ was given, defaulted, or its interval could not be drawn.
   */
  iccRange: { estimate: number; lower: number; upper: number; designEffect: { lower: number; upper: number } } | null;
};

/**
 * The plan for a batch's window at one half-width. Expected agreement: the run's reviewed agreement (per stratum
 * when the stratum has 30 or more reviewed items, else the run's), or the documented default. ρ: the upper end of its
 * 95% interval when measured (the cautious end: the design effect grows with ρ), else the documented default.
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
  const measured = overrides.icc === undefined && evidence.icc !== null ? evidence.icc : null;
  const range = measured !== null && evidence.iccInterval ? evidence.iccInterval : null;
  const icc =
    overrides.icc ??
    (range ? Math.max(measured!, range.upper) : null) ??
    evidence.icc ??
    DEFAULT_INTRA_TICKET_CORRELATION;
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
            ? range
              ? `measured ${evidence.icc.toFixed(2)} over ${evidence.iccTickets} tickets with two or more reviewed items, 95% interval ${range.lower.toFixed(2)}–${range.upper.toFixed(2)}: planned at its upper end`
              : `measured over ${evidence.iccTickets} tickets with two or more reviewed items; its interval could not be drawn`
            : `default ${DEFAULT_INTRA_TICKET_CORRELATION} (${evidence.iccTickets} tickets with two or more reviewed items; ${MIN_ICC_TICKETS} needed to measure it)`,
    },
    iccRange: range && {
      estimate: measured!,
      lower: range.lower,
      upper: range.upper,
      designEffect: {
        lower: designEffect(itemsPerTicket, range.lower),
        upper: designEffect(itemsPerTicket, range.upper),
      },
    },
  };
}
