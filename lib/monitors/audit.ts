// The shadow audit over training steps: current human reviews grouped into fixed step windows [k·w, (k+1)·w) —
// fixed so that a window's figures do not move as the run grows — with agreement, extraction accuracy and
// human-measured success per window, each with its Wilson interval. Pure.
import { scoresAgree, SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";
import {
  pairSlotCounts,
  toStatClaims,
  type CaseSlots,
  type Claims,
  type ExtractionPair,
} from "@/lib/stats/extraction-accuracy.ts";
import { wilson, type IntervalEstimate } from "@/lib/stats/intervals.ts";
import type { StepPoint } from "@/lib/stats/trend.ts";

/** One current review next to the ledger entry it shadows, with the claim slots its annotator was shown. */
export type AuditPair = {
  itemId: bigint;
  /** The item's first current review: the one its extraction accuracy is measured against (as on /agreement). */
  primary: boolean;
  step: number;
  /** null: the ledger entry has no reward (spec or input error); not comparable. */
  ledgerReward: number | null;
  humanReward: number;
  /** The batch's agreement tolerance. */
  tolerance: number;
  ledgerClaims: Claims | null;
  humanClaims: Claims | null;
  /** Write tools of the rollout's registry, the spec's must-mention keys and forbidden codes (lib/agreement/case-slots.ts). */
  slots: CaseSlots;
};

export type AuditPoint = {
  /** First step of the window. */
  step: number;
  /** Last step of the window. */
  stepTo: number;
  /** Reviewed items (each through its primary review). */
  reviews: number;
  /** Reviewed items whose ledger entry has a reward: the agreement denominator. */
  compared: number;
  agreeing: number;
  agreement: IntervalEstimate | null;
  /** Claim slots compared (see extractionPair) and how many agree. */
  slots: number;
  correctSlots: number;
  extraction: IntervalEstimate | null;
  /** Reviewed items whose human reward is ≥ 0.9. */
  humanSuccesses: number;
  humanSuccess: IntervalEstimate | null;
};

/** A window of the audit series with nothing counted in it yet. */
function emptyWindow(start: number, width: number): AuditPoint {
  return {
    step: start,
    stepTo: start + width - 1,
    reviews: 0,
    compared: 0,
    agreeing: 0,
    agreement: null,
    slots: 0,
    correctSlots: 0,
    extraction: null,
    humanSuccesses: 0,
    humanSuccess: null,
  };
}

/** Window start of `step` on the fixed grid of width `width` from step 0. */
export function windowStart(step: number, width: number): number {
  return Math.floor(step / width) * width;
}

/**
 * The extraction pair a review contributes, as the agreement report counts it: an item counts once, through its
 * primary review, when its ledger entry has a reward (it was compared) and claims. null otherwise.
 */
export function extractionPair(p: AuditPair): ExtractionPair | null {
  if (!p.primary || p.ledgerReward === null || !p.ledgerClaims || !p.humanClaims) return null;
  return { extracted: toStatClaims(p.ledgerClaims), human: toStatClaims(p.humanClaims), slots: p.slots };
}

/** Correct and compared claim slots of one pair under its own case's slots; null when it does not count. */
export function pairSlots(p: AuditPair): { correct: number; n: number } | null {
  const x = extractionPair(p);
  return x && pairSlotCounts(x);
}

/**
 * Reviews pooled into windows of `width` steps as they come, in any order: every figure of a window is a sum over
 * its reviews (extraction accuracy's pooled counts are additive over pairs), so a run's reviews can be read in chunks
 * and dropped once added.
 */
export class AuditWindows {
  private readonly byWindow = new Map<number, AuditPoint>();
  constructor(private readonly width: number) {}

  add(p: AuditPair): void {
    // Each item once, through its primary review, as the agreement page and the gate count it (headlineCounts): an
    // overlap item's second review measures the annotators, not the ledger.
    if (!p.primary) return;
    const start = windowStart(p.step, this.width);
    let w = this.byWindow.get(start);
    if (!w) {
      w = emptyWindow(start, this.width);
      this.byWindow.set(start, w);
    }
    w.reviews++;
    if (p.humanReward >= SUCCESS_THRESHOLD) w.humanSuccesses++;
    if (p.ledgerReward !== null) {
      w.compared++;
      if (scoresAgree(p.humanReward, p.ledgerReward, p.tolerance)) w.agreeing++;
    }
    const slots = pairSlots(p);
    if (slots) {
      w.slots += slots.n;
      w.correctSlots += slots.correct;
    }
  }

  /** The windows with reviews, in step order, with their intervals. */
  points(): AuditPoint[] {
    return [...this.byWindow.values()]
      .sort((a, b) => a.step - b.step)
      .map((w) => ({
        ...w,
        agreement: wilson(w.agreeing, w.compared),
        extraction: wilson(w.correctSlots, w.slots),
        humanSuccess: wilson(w.humanSuccesses, w.reviews),
      }));
  }
}

/**
 * A run's reviews pooled per step, the finest grid, as columns in step order (steps without reviews absent): the
 * windows of any width (auditPointsOf) and the sums over any step range (auditTotals) are read off it in O(steps),
 * and it is a few bytes per step, however many reviews it pools.
 */
export type AuditSteps = {
  step: Int32Array;
  reviews: Int32Array;
  compared: Int32Array;
  agreeing: Int32Array;
  slots: Int32Array;
  correctSlots: Int32Array;
  humanSuccesses: Int32Array;
};

const COUNTS = ["reviews", "compared", "agreeing", "slots", "correctSlots", "humanSuccesses"] as const;

/** The per-step columns of windows of width 1. */
export function auditStepsOf(perStep: AuditWindows): AuditSteps {
  const points = perStep.points();
  const col = (f: (p: AuditPoint) => number) => Int32Array.from(points, f);
  return {
    step: col((p) => p.step),
    reviews: col((p) => p.reviews),
    compared: col((p) => p.compared),
    agreeing: col((p) => p.agreeing),
    slots: col((p) => p.slots),
    correctSlots: col((p) => p.correctSlots),
    humanSuccesses: col((p) => p.humanSuccesses),
  };
}

/** The per-step pools merged into windows of `width` steps: what auditPoints gives for the same reviews. */
export function auditPointsOf(s: AuditSteps, width: number): AuditPoint[] {
  const out: AuditPoint[] = [];
  for (let i = 0; i < s.step.length; i++) {
    const start = windowStart(s.step[i], width);
    let w = out.at(-1);
    if (!w || w.step !== start) {
      w = emptyWindow(start, width);
      out.push(w);
    }
    for (const k of COUNTS) w[k] += s[k][i];
  }
  for (const w of out) {
    w.agreement = wilson(w.agreeing, w.compared);
    w.extraction = wilson(w.correctSlots, w.slots);
    w.humanSuccess = wilson(w.humanSuccesses, w.reviews);
  }
  return out;
}

/** The agreement and extraction counts of the reviews whose step is in [from, to]. */
export function auditTotals(
  s: AuditSteps,
  range: { from: number; to: number },
): { compared: number; agreeing: number; slots: number; correctSlots: number } {
  const t = { compared: 0, agreeing: 0, slots: 0, correctSlots: 0 };
  for (let i = 0; i < s.step.length; i++) {
    if (s.step[i] < range.from || s.step[i] > range.to) continue;
    t.compared += s.compared[i];
    t.agreeing += s.agreeing[i];
    t.slots += s.slots[i];
    t.correctSlots += s.correctSlots[i];
  }
  return t;
}

/** Reviews pooled into windows of `width` steps, in step order; windows without reviews are absent. */
export function auditPoints(pairs: Iterable<AuditPair>, width: number): AuditPoint[] {
  const windows = new AuditWindows(width);
  for (const p of pairs) windows.add(p);
  return windows.points();
}

/** Per-window series for the alarms: agreement, extraction accuracy and human success with their n. */
export function auditSeries(points: readonly AuditPoint[]): {
  agreement: StepPoint[];
  extraction: StepPoint[];
  humanSuccess: StepPoint[];
} {
  return {
    agreement: points.map((p) => ({ step: p.step, value: p.agreement?.estimate ?? null, n: p.compared })),
    extraction: points.map((p) => ({ step: p.step, value: p.extraction?.estimate ?? null, n: p.slots })),
    humanSuccess: points.map((p) => ({ step: p.step, value: p.humanSuccess?.estimate ?? null, n: p.reviews })),
  };
}
