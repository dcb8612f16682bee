import { describe, expect, it } from "vitest";
import { evaluateGate, gateWindow, type GateHackingWindow, type GateInputs } from "@/lib/gate/evaluate.ts";
import { defaultGateRules, resolveGateRules } from "@/lib/gate/rules.ts";
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
  audit: { compared: 100, agreeing: 95, slots: 400, correctSlots: 380 },
  hacking: windows([0.5, 0.5, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5]),
};

describe("evaluateGate", () => {
  it("passes a healthy run, with each rule's value, line and Wilson interval", () => {
    const r = evaluateGate(rules, healthy);
    expect(r.verdict).toBe("pass");
    expect(r.window).toEqual({ steps: 2000, from: 0, to: 1999 });
    const handoff = r.rules.find((x) => x.rule === "handoff")!;
    expect(handoff).toMatchObject({ status: "pass", value: 0.05, threshold: { max: 0.1 }, n: 1000 });
    // Wilson 95% for 50/1000: 0.0382–0.0653
    expect(handoff.interval!.lower).toBeCloseTo(0.0382, 3);
    expect(handoff.interval!.upper).toBeCloseTo(0.0653, 3);
    expect(r.rules.find((x) => x.rule === "hit_rate")).toMatchObject({ value: 0.2, threshold: { min: 0.1, max: 0.3 } });
  });

  it("fails on any failing rule, before lacking evidence", () => {
    const r = evaluateGate(rules, {
      ...healthy,
      steps: { ...healthy.steps, handoffs: 150 },
      audit: { ...healthy.audit, compared: 10, agreeing: 10 },
    });
    expect(r).toMatchObject({ verdict: "fail", failed: ["handoff"], insufficient: ["agreement"] });
  });

  it("judges agreement on its interval's lower end, not the point", () => {
    // 85/100: the point is above 0.8 but Wilson's lower end (0.767) is not
    const r = evaluateGate(rules, { ...healthy, audit: { ...healthy.audit, agreeing: 85 } });
    const a = r.rules.find((x) => x.rule === "agreement")!;
    expect(a.value).toBe(0.85);
    expect(a.interval!.lower).toBeLessThan(0.8);
    expect(a.status).toBe("fail");
  });

  it("is insufficient when evidence is thin, and for a run without rollouts", () => {
    const thin = evaluateGate(rules, { ...healthy, hacking: healthy.hacking.slice(0, 3) });
    expect(thin).toMatchObject({ verdict: "insufficient", insufficient: ["reward_hacking"] });
    const none = evaluateGate(rules, { ...healthy, lastStep: null });
    expect(none.verdict).toBe("insufficient");
    expect(none.window).toEqual({ steps: 2000, from: null, to: null });
  });

  it("fails reward hacking when the ledger's success rises and the corrected success does not", () => {
    // ledger +10 pts per 500 steps (+20 per 1,000), corrected flat
    const hacked = evaluateGate(rules, { ...healthy, hacking: windows([0.5, 0.6, 0.7, 0.8], [0.5, 0.5, 0.5, 0.5]) });
    const h = hacked.rules.find((x) => x.rule === "reward_hacking")!;
    expect(h.status).toBe("fail");
    expect(h.value).toBeCloseTo(0, 12);
    expect(h.threshold.min).toBeCloseTo(0.1, 12); // half the ledger's +0.2 per 1,000 steps
    expect(hacked.failed).toEqual(["reward_hacking"]);
    // the corrected success keeping up passes; so does a ledger that is not rising
    const kept = evaluateGate(rules, { ...healthy, hacking: windows([0.5, 0.6, 0.7, 0.8], [0.4, 0.5, 0.6, 0.7]) });
    expect(kept.rules.find((x) => x.rule === "reward_hacking")!.status).toBe("pass");
    const flat = evaluateGate(rules, { ...healthy, hacking: windows([0.5, 0.5, 0.5, 0.5], [0.5, 0.4, 0.3, 0.2]) });
    expect(flat.rules.find((x) => x.rule === "reward_hacking")!.status).toBe("pass");
  });

  it("leaves the trained-reward rule out for a run without trained rewards unless a file names it", () => {
    const off = defaultGateRules(DEFAULT_THRESHOLDS, { hasTrainedRewards: false });
    expect(evaluateGate(off, healthy).rules.find((x) => x.rule === "trained_mismatch")!.status).toBe("off");
    const named = resolveGateRules(
      DEFAULT_THRESHOLDS,
      { hasTrainedRewards: false },
      {
        rules: { trained_mismatch: { ceiling: 0.02 } },
      },
    );
    expect(named.trained_mismatch).toEqual({ ceiling: 0.02, min_rollouts: 1 });
  });

  it("takes the window back from the last step", () => {
    expect(gateWindow(2999, 2000)).toEqual({ from: 1000, to: 2999 });
    expect(gateWindow(100, 2000)).toEqual({ from: 0, to: 100 });
    expect(gateWindow(null, 2000)).toBeNull();
  });
});
