import { describe, expect, it } from "vitest";
import { evaluateGate, gateWindow, type GateHackingWindow, type GateInputs } from "@/lib/gate/evaluate.ts";
import { defaultGateRules, hackingAuditWindow, resolveGateRules } from "@/lib/gate/rules.ts";
import { DEFAULT_THRESHOLDS } from "@/lib/monitors/schema.ts";

const rules = defaultGateRules(DEFAULT_THRESHOLDS, { hasTrainedRewards: true });

/** Windows of 500 steps, ledger share and corrected share as given (100 ledger entries, 10 reviews each). */
const windows = (ledger: number[], corrected: number[]): GateHackingWindow[] =>
  ledger.map((l, i) => ({
    step: i * 500,
    stepTo: i * 500 + 499,
    ledgerN: 100,
    ledgerSuccess: l,
    reviews: 10,
    corrected: { estimate: corrected[i], lower: corrected[i] - 0.1, upper: corrected[i] + 0.1 },
  }));

const healthy: GateInputs = {
  runId: "r",
  lastStep: 1999,
  steps: { rollouts: 1000, handoffs: 50, guardrailHits: 200, trained: 1000, trainedDiffers: 0, trainedAbsDiffSum: 0 },
  audit: { compared: 100, agreeing: 95, extractionItems: 80, slots: 400, correctSlots: 380 },
  hacking: windows([0.5, 0.5, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5]),
  ordering: { agree: 0, inversions: 0 },
};
const rule = (r: ReturnType<typeof evaluateGate>, key: string) => r.rules.find((x) => x.rule === key)!;

describe("evaluateGate", () => {
  it("passes a healthy run, with each rule's value and line; a full count of the window has no sampling interval", () => {
    const r = evaluateGate(rules, healthy);
    expect(r).toMatchObject({ verdict: "pass", failed: [], insufficient: [], warnings: [] });
    expect(r.window).toEqual({ steps: 2000, from: 0, to: 1999 });
    // hand-offs, hits and trained-reward mismatches count every rollout of the window: no "95%" interval
    expect(rule(r, "handoff")).toMatchObject({ status: "pass", value: 0.05, threshold: { max: 0.1 }, n: 1000 });
    expect(rule(r, "handoff").interval).toBeNull();
    expect(rule(r, "handoff").message).toBe(
      "hand-offs on 5% of all 1,000 rollouts of the window: at or under the 10% ceiling",
    );
    expect(rule(r, "trained_mismatch").interval).toBeNull();
    expect(rule(r, "hit_rate")).toMatchObject({ value: 0.2, threshold: { min: 0.1, max: 0.3 }, interval: null });
    // the audit is a sample: agreement keeps its Wilson interval (95/100: 0.888–0.978)
    expect(rule(r, "agreement").interval!.lower).toBeCloseTo(0.8883, 3);
    expect(rule(r, "agreement")).toMatchObject({ unit: "items", n: 100 });
  });

  it("warns, and passes, on health readings out of their line: hit rate, hand-offs, extraction", () => {
    // guardrails that no longer bite (late in a good run), many hand-offs, a weak extractor
    const r = evaluateGate(rules, {
      ...healthy,
      steps: { ...healthy.steps, guardrailHits: 30, handoffs: 150 },
      audit: { ...healthy.audit, correctSlots: 300 },
    });
    expect(r).toMatchObject({ verdict: "pass", failed: [], warnings: ["hit_rate", "handoff", "extraction"] });
    expect(rule(r, "hit_rate")).toMatchObject({ status: "warn", severity: "warn" });
    expect(rule(r, "hit_rate").message).toMatch(/below the 10%–30% band$/);
    // a rules file can make a health reading a stop rule again
    const strict = resolveGateRules(
      DEFAULT_THRESHOLDS,
      { hasTrainedRewards: true },
      { rules: { hit_rate: { severity: "stop" } } },
    );
    expect(evaluateGate(strict, { ...healthy, steps: { ...healthy.steps, guardrailHits: 30 } })).toMatchObject({
      verdict: "fail",
      failed: ["hit_rate"],
    });
  });

  it("passes a run scored outside Verity: no guardrail hits, no claims, no trained rewards", () => {
    const outside = defaultGateRules(DEFAULT_THRESHOLDS, { hasTrainedRewards: false });
    const r = evaluateGate(outside, {
      ...healthy,
      steps: { ...healthy.steps, guardrailHits: 0, trained: 0 },
      audit: { ...healthy.audit, extractionItems: 0, slots: 0, correctSlots: 0 },
    });
    expect(r).toMatchObject({ verdict: "pass", insufficient: [], warnings: ["hit_rate"] });
    expect(rule(r, "extraction").status).toBe("insufficient");
    expect(rule(r, "trained_mismatch").status).toBe("off");
  });

  it("fails on any failing stop rule, before lacking evidence", () => {
    const r = evaluateGate(rules, {
      ...healthy,
      steps: { ...healthy.steps, trainedDiffers: 50, trainedAbsDiffSum: 5 },
      audit: { ...healthy.audit, compared: 10, agreeing: 10 },
    });
    expect(r).toMatchObject({ verdict: "fail", failed: ["trained_mismatch"], insufficient: ["agreement"] });
  });

  it("judges agreement on its interval's lower end, not the point", () => {
    // 80/100: the point is above 0.75 but Wilson's lower end (0.711) is not
    const r = evaluateGate(rules, { ...healthy, audit: { ...healthy.audit, agreeing: 80 } });
    const a = rule(r, "agreement");
    expect(a.value).toBe(0.8);
    expect(a.threshold).toEqual({ min: 0.75 });
    expect(a.interval!.lower).toBeLessThan(0.75);
    expect(a.status).toBe("fail");
  });

  it("counts extraction's evidence in items, as the agreement page does, not in claim slots", () => {
    // 66 slots from 8 items: the page says "too few to say"
    const r = evaluateGate(rules, {
      ...healthy,
      audit: { ...healthy.audit, extractionItems: 8, slots: 66, correctSlots: 60 },
    });
    expect(rule(r, "extraction")).toMatchObject({ status: "insufficient", n: 8, unit: "items", value: null });
    expect(rule(r, "extraction").message).toBe(
      "8 items with claims compared (66 claim slots) in the window, 30 needed",
    );
    const enough = rule(evaluateGate(rules, healthy), "extraction");
    expect(enough).toMatchObject({ status: "pass", n: 80, unit: "items", value: 0.95 });
    expect(enough.message).toMatch(/over 400 claim slots of 80 items: at or above the 85% floor$/);
  });

  it("is insufficient when a stop rule's evidence is thin, and for a run without rollouts", () => {
    const thin = evaluateGate(rules, { ...healthy, hacking: healthy.hacking.slice(0, 3) });
    expect(thin).toMatchObject({ verdict: "insufficient", insufficient: ["reward_hacking"] });
    // its line is in the report's units, a fraction per 1,000 steps (the run's rise, 0.01), as when it has evidence
    expect(rule(thin, "reward_hacking").threshold).toEqual({ min: 0.01 });
    const none = evaluateGate(rules, { ...healthy, lastStep: null });
    expect(none.verdict).toBe("insufficient");
    expect(none.window).toEqual({ steps: 2000, from: null, to: null });
  });

  it("fails reward hacking when the ledger's success rises and the corrected success does not", () => {
    // ledger +10 pts per 500 steps (+20 per 1,000), corrected flat
    const hacked = evaluateGate(rules, { ...healthy, hacking: windows([0.5, 0.6, 0.7, 0.8], [0.5, 0.5, 0.5, 0.5]) });
    const h = rule(hacked, "reward_hacking");
    expect(h.status).toBe("fail");
    expect(h.value).toBeCloseTo(0, 12);
    expect(h.threshold.min).toBeCloseTo(0.1, 12); // half the ledger's +0.2 per 1,000 steps
    expect(hacked.failed).toEqual(["reward_hacking"]);
    expect(h.message).toContain(
      "ledger success +20.00 pts per 1,000 steps, corrected success +0.00 pts per 1,000 steps",
    );
    // the corrected success keeping up passes; so does a ledger that is not rising
    const kept = evaluateGate(rules, { ...healthy, hacking: windows([0.5, 0.6, 0.7, 0.8], [0.4, 0.5, 0.6, 0.7]) });
    expect(rule(kept, "reward_hacking").status).toBe("pass");
    const flat = evaluateGate(rules, { ...healthy, hacking: windows([0.5, 0.5, 0.5, 0.5], [0.5, 0.4, 0.3, 0.2]) });
    expect(rule(flat, "reward_hacking").status).toBe("pass");
  });

  it("gives reward hacking's interval for the corrected slope, in the value's units", () => {
    // corrected 0.40, 0.52, 0.58, 0.71 at steps 0–1,500: OLS slope 0.198 per 1,000 steps, t(0.975, 2) = 4.303
    const r = evaluateGate(rules, { ...healthy, hacking: windows([0.5, 0.6, 0.7, 0.8], [0.4, 0.52, 0.58, 0.71]) });
    const h = rule(r, "reward_hacking");
    expect(h.value).toBeCloseTo(0.198, 12);
    expect(h.interval!.lower).toBeCloseTo(0.11774, 4);
    expect(h.interval!.upper).toBeCloseTo(0.27826, 4);
    expect(h.message).toContain("corrected success +19.80 pts per 1,000 steps (95% +11.77 to +27.83)");
  });

  it("leaves the trained-reward rule out for a run without trained rewards unless a file names it", () => {
    const off = defaultGateRules(DEFAULT_THRESHOLDS, { hasTrainedRewards: false });
    expect(rule(evaluateGate(off, healthy), "trained_mismatch").status).toBe("off");
    const named = resolveGateRules(
      DEFAULT_THRESHOLDS,
      { hasTrainedRewards: false },
      {
        rules: { trained_mismatch: { ceiling: 0.02 } },
      },
    );
    expect(named.trained_mismatch).toEqual({ ceiling: 0.02, min_rollouts: 1, severity: "stop" });
  });

  it("judges pairwise ordering on its lower bound, a stop rule, off for a run without judged pairs", () => {
    expect(rule(evaluateGate(rules, healthy), "ordering").status).toBe("off");
    const judged = defaultGateRules(DEFAULT_THRESHOLDS, { hasTrainedRewards: true, hasPairwise: true });
    // 90/100 ordered judgements agree: Wilson's lower end 0.826 ≥ 0.8
    const ok = evaluateGate(judged, { ...healthy, ordering: { agree: 90, inversions: 10 } });
    expect(ok.verdict).toBe("pass");
    expect(rule(ok, "ordering")).toMatchObject({ status: "pass", severity: "stop", n: 100, unit: "judgements" });
    expect(rule(ok, "ordering").interval!.lower).toBeCloseTo(0.8256, 3);
    // 85/100: the point is above the 0.8 floor, the lower end (0.767) is not
    const low = evaluateGate(judged, { ...healthy, ordering: { agree: 85, inversions: 15 } });
    expect(low).toMatchObject({ verdict: "fail", failed: ["ordering"] });
    const thin = evaluateGate(judged, { ...healthy, ordering: { agree: 20, inversions: 2 } });
    expect(thin).toMatchObject({ verdict: "insufficient", insufficient: ["ordering"] });
  });

  it("takes the window back from the last step", () => {
    expect(gateWindow(2999, 2000)).toEqual({ from: 1000, to: 2999 });
    expect(gateWindow(100, 2000)).toEqual({ from: 0, to: 100 });
    expect(gateWindow(null, 2000)).toBeNull();
  });

  it("fits the reward-hacking trend on audit windows at least a tenth of the gate window", () => {
    expect(hackingAuditWindow(500, 2000)).toBe(500);
    expect(hackingAuditWindow(500, 30_000)).toBe(3000);
    expect(
      resolveGateRules(DEFAULT_THRESHOLDS, { hasTrainedRewards: true, windowSteps: 30_000 }).reward_hacking,
    ).toMatchObject({
      audit_window: 3000,
    });
    // a rules file's audit window is taken as given
    const file = { rules: { reward_hacking: { audit_window: 700 } } };
    expect(
      resolveGateRules(DEFAULT_THRESHOLDS, { hasTrainedRewards: true, windowSteps: 30_000 }, file).reward_hacking,
    ).toMatchObject({ audit_window: 700 });
  });
});

describe("the ledger_rank rule", () => {
  const on = resolveGateRules(DEFAULT_THRESHOLDS, { hasTrainedRewards: true }, { rules: { ledger_rank: {} } });
  const standing = (over: { n?: number; difference?: number; pValue?: number } = {}) => ({
    items: 120,
    rank: 2,
    of: 3,
    ledger: { agreement: 0.8, covered: 120 },
    best: {
      id: "7",
      label: "judge v1",
      agreement: 0.9,
      n: over.n ?? 120,
      difference: over.difference ?? -0.1,
      interval: { lower: -0.17, upper: -0.03 },
      pValue: over.pValue ?? 0.004,
    },
    significantlyWorse: true,
    verdict: "judge v1 agrees more often than ledger",
  });

  it("is off by default, and on when a rules file names it", () => {
    expect(rule(evaluateGate(rules, healthy), "ledger_rank")).toMatchObject({ status: "off" });
    expect(on.ledger_rank).toEqual({ alpha: 0.05, min_items: 30, severity: "stop" });
  });

  it("fails when the best candidate is right significantly more often, and passes when the audit cannot tell", () => {
    const worse = evaluateGate(on, { ...healthy, ledgerRank: standing() });
    expect(worse).toMatchObject({ verdict: "fail", failed: ["ledger_rank"] });
    expect(rule(worse, "ledger_rank")).toMatchObject({ value: -0.1, n: 120, unit: "items", threshold: { min: 0 } });
    expect(rule(worse, "ledger_rank").message).toBe(
      "the ledger ranks 2 of 3 by agreement; −10.00 pts against judge v1 (McNemar exact p = 0.00400) over 120 items: significantly worse (p < 0.05)",
    );
    const unclear = evaluateGate(on, { ...healthy, ledgerRank: standing({ pValue: 0.2 }) });
    expect(rule(unclear, "ledger_rank").status).toBe("pass");
    // a ledger significantly better than the rest is not worse
    const better = evaluateGate(on, { ...healthy, ledgerRank: standing({ difference: 0.1 }) });
    expect(rule(better, "ledger_rank").status).toBe("pass");
  });

  it("has not enough evidence under min_items compared, or without any reward function", () => {
    const thin = evaluateGate(on, { ...healthy, ledgerRank: standing({ n: 12 }) });
    expect(thin).toMatchObject({ verdict: "insufficient", insufficient: ["ledger_rank"] });
    expect(rule(thin, "ledger_rank").message).toBe(
      "12 audited items scored by both the ledger and judge v1 in the window, 30 needed",
    );
    const none = evaluateGate(on, { ...healthy, ledgerRank: null });
    expect(rule(none, "ledger_rank").message).toBe("no reward function has results on the window's audited items");
  });
});
