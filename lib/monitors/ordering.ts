// Ordering agreement over training steps: the current, counted pairwise judgements of a run pooled into the audit
// windows [k·w, (k+1)·w) of lib/monitors/audit.ts, each window's ordering agreement (lib/stats/ordering-agreement.ts:
// agree / (agree + inversions), ties and pairs the ledger does not order apart) with its Wilson interval. The alarm
// reads the interval's lower bound: a window is judged only with enough ordered judgements. Pure.
import { windowStart } from "@/lib/monitors/audit.ts";
import type { OrderVerdict } from "@/lib/ledger/order.ts";
import { orderingAgreement } from "@/lib/stats/ordering-agreement.ts";
import type { StepPoint } from "@/lib/stats/trend.ts";

/** One counted judgement of a pair: the pair's step, how it stands against the ledger's order, the side chosen. */
export type OrderingJudgement = {
  step: number;
  verdict: OrderVerdict;
  side: "left" | "right" | "tie";
  inclusionProb: number;
};

export type OrderingPoint = {
  /** First and last step of the window. */
  step: number;
  stepTo: number;
  judgements: number;
  agree: number;
  inversions: number;
  ties: number;
  /** agree / (agree + inversions) with its 95% Wilson interval; null without an ordered judgement. */
  agreement: { estimate: number; lower: number; upper: number } | null;
};

/** Judgements pooled into windows of `width` steps, in step order; windows without judgements are absent. */
export function orderingPoints(judgements: readonly OrderingJudgement[], width: number): OrderingPoint[] {
  const byWindow = new Map<number, OrderingJudgement[]>();
  for (const j of judgements) {
    const w = windowStart(j.step, width);
    const list = byWindow.get(w);
    if (list) list.push(j);
    else byWindow.set(w, [j]);
  }
  return [...byWindow.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([step, list]) => {
      const o = orderingAgreement(list);
      const a = o.agreement;
      return {
        step,
        stepTo: step + width - 1,
        judgements: list.length,
        agree: o.agree,
        inversions: o.inversions,
        ties: o.ties,
        agreement:
          a.rate === null || a.interval === null
            ? null
            : { estimate: a.rate, lower: a.interval.lower, upper: a.interval.upper },
      };
    });
}

/** The alarm's series: per window the agreement's lower bound, with n the ordered judgements (agree + inversions). */
export function orderingSeries(points: readonly OrderingPoint[]): StepPoint[] {
  return points.map((p) => ({ step: p.step, value: p.agreement?.lower ?? null, n: p.agree + p.inversions }));
}
