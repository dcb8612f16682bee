import { describe, expect, it } from "vitest";
import {
  computeAlarmStatuses,
  ledgerRewardByWindow,
  planAlarmUpdate,
  planRunUpdate,
  type AlarmStepRow,
  type AlarmTransition,
  type PersistedAlarm,
} from "@/lib/monitors/alarm-state.ts";
import type { AuditPoint } from "@/lib/monitors/audit.ts";
import { alarmRules, ALARMS, ruleHash, type AlarmKey } from "@/lib/monitors/rules.ts";
import { DEFAULT_THRESHOLDS } from "@/lib/monitors/schema.ts";
import { wilson } from "@/lib/stats/intervals.ts";

const rules = alarmRules({ ...DEFAULT_THRESHOLDS });
/** The state machine's own cases judge from the first step (the run-level minimum has its own tests). */
const ANY = { rollouts: 0, steps: 0 };
const hashes = Object.fromEntries(ALARMS.map((a) => [a, ruleHash(rules[a])])) as Record<AlarmKey, string>;

/** A healthy step of 100 rollouts: 20% hit rate, 5% hand-off, group std 0.2, mean reward 0.5. */
function step(s: number, over: Partial<AlarmStepRow> = {}): AlarmStepRow {
  return {
    step: s,
    rollouts: 100,
    handoffs: 5,
    guardrailHits: 20,
    groups: 25,
    groupStdSum: 25 * 0.2,
    rewarded: 100,
    rewardSum: 50,
    trained: 0,
    trainedDiffers: 0,
    trainedAbsDiffSum: 0,
    ...over,
  };
}

/**
 * Feeds the steps one at a time (data arriving), evaluates after each arrival and persists like the database layer
 * does; returns the transitions in order and the final stored rows.
 */
function replayArrivals(steps: AlarmStepRow[], audit: (upTo: number) => AuditPoint[] = () => []) {
  let stored: PersistedAlarm[] = [];
  const transitions: AlarmTransition[] = [];
  for (let i = 1; i <= steps.length; i++) {
    const seen = steps.slice(0, i);
    const last = seen[seen.length - 1].step;
    const computed = computeAlarmStatuses(rules, {
      steps: seen,
      audit: audit(last),
      auditWindow: 500,
      minEvidence: ANY,
    });
    const planned = planRunUpdate(stored, computed, {
      runId: "r",
      ruleHashes: hashes,
      fingerprint: `f${i}`,
      now: new Date(i * 1000),
    });
    stored = planned.rows;
    transitions.push(...planned.transitions);
  }
  return { transitions, stored };
}

const of = (ts: AlarmTransition[], alarm: AlarmKey) =>
  ts.filter((t) => t.alarm === alarm).map((t) => `${t.from}→${t.to}@${t.step}`);

describe("alarm persistence: entering and leaving each state", () => {
  it("hand-off rate: green → amber (near the line) → red (3 breaches) → amber (3 clear of the line) → green (3 clear of the warning)", () => {
    const rates = [0.05, 0.09, 0.12, 0.12, 0.12, 0.085, 0.085, 0.085, 0.05, 0.05, 0.05];
    const { transitions, stored } = replayArrivals(
      rates.map((r, i) => step(i, { handoffs: Math.round(r * 1000) / 10, rollouts: 100 })),
    );
    expect(of(transitions, "handoff")).toEqual(["green→amber@1", "amber→red@4", "red→amber@7", "amber→green@10"]);
    const row = stored.find((r) => r.alarm === "handoff")!;
    expect(row).toMatchObject({ state: "green", sinceStep: 10, atStep: 10, value: 0.05 });
    // changedAt is the moment of the last change (the 11th arrival), evaluatedAt the last evaluation
    expect(row.changedAt).toEqual(new Date(11_000));
    // the other step alarms saw healthy values throughout
    expect(of(transitions, "hit_rate")).toEqual([]);
    expect(of(transitions, "group_std")).toEqual([]);
  });

  it("trained-reward mismatch: one step past 1% turns it red at once; steps without trained rewards are skipped", () => {
    // differing per 200 trained: 0, 0, (none logged), 3 (1.5%), 0, 0, 0 → red at the breach, back after 3 clear
    const differing = [0, 0, null, 3, 0, 0, 0];
    const { transitions, stored } = replayArrivals(
      differing.map((d, i) =>
        step(i, d === null ? {} : { trained: 200, trainedDiffers: d, trainedAbsDiffSum: d * 0.25 }),
      ),
    );
    expect(of(transitions, "trained_mismatch")).toEqual(["green→red@3", "red→green@6"]);
    expect(stored.find((r) => r.alarm === "trained_mismatch")).toMatchObject({ state: "green", value: 0 });
    // exactly 1% is at the line (amber: past the 0.5% warning), not past it
    const near = replayArrivals([step(0, { trained: 200, trainedDiffers: 2 })]);
    expect(of(near.transitions, "trained_mismatch")).toEqual(["green→amber@0"]);
  });

  it("guardrail hit rate leaves the band on both sides and comes back", () => {
    const rates = [0.2, 0.35, 0.35, 0.35, 0.2, 0.2, 0.2, 0.05, 0.05, 0.05, 0.2, 0.2, 0.2];
    const { transitions } = replayArrivals(rates.map((r, i) => step(i, { guardrailHits: r * 100 })));
    // Above the band: amber at once (outside the warning margin), red after 3; back inside the band by more than the
    // margins for 3 evaluations: green. Then the same below the band.
    expect(of(transitions, "hit_rate")).toEqual([
      "green→amber@1",
      "amber→red@3",
      "red→green@6",
      "green→amber@7",
      "amber→red@9",
      "red→green@12",
    ]);
  });

  it("within-group std: floor breached → red, recovering through amber to green", () => {
    const stds = [0.2, 0.055, 0.04, 0.04, 0.04, 0.06, 0.06, 0.06, 0.1, 0.1, 0.1];
    const { transitions } = replayArrivals(stds.map((v, i) => step(i, { groupStdSum: 25 * v })));
    expect(of(transitions, "group_std")).toEqual(["green→amber@1", "amber→red@4", "red→amber@7", "amber→green@10"]);
  });

  it("extraction accuracy: two low windows turn it red, two good ones bring it back", () => {
    const acc = [0.95, 0.8, 0.8, 0.95, 0.95];
    const points = acc.map((a, i) => auditPoint(i * 500, { slots: 100, correctSlots: a * 100 }));
    const steps = acc.map((_, i) => step(i * 500));
    const { transitions } = replayArrivals(steps, (upTo) => points.filter((p) => p.step <= upTo));
    expect(of(transitions, "extraction")).toEqual(["green→amber@500", "amber→red@1000", "red→green@2000"]);
  });

  it("reward hacking: ledger reward rising while human agreement falls turns red; the trends reversing clears it", () => {
    // 500-step windows; a trend needs 4 windows of the 2000-step window. Ledger +0.02 per window (4e-5 per step),
    // agreement −0.03 per window, then both reverse.
    const ledger = [0.5, 0.52, 0.54, 0.56, 0.58, 0.6, 0.58, 0.56, 0.54, 0.52, 0.5];
    const agree = [0.9, 0.87, 0.84, 0.81, 0.78, 0.75, 0.78, 0.81, 0.84, 0.87, 0.9];
    const steps = ledger.map((m, i) => step(i * 500, { rewardSum: m * 100 }));
    const points = agree.map((a, i) =>
      auditPoint(i * 500, { compared: 50, agreeing: a * 50, reviews: 50, humanSuccesses: 25 }),
    );
    const { transitions, stored } = replayArrivals(steps, (upTo) => points.filter((p) => p.step <= upTo));
    const t = of(transitions, "hacking_agreement");
    expect(t[0]).toBe("green→amber@1500");
    expect(t[1]).toBe("amber→red@2000");
    expect(t[t.length - 1]).toMatch(/→green@\d+$/);
    expect(stored.find((r) => r.alarm === "hacking_agreement")!.state).toBe("green");
    // human success is flat (50%): no divergence on that measure
    expect(of(transitions, "hacking_success")).toEqual([]);
  });
});

describe("alarm persistence: no flapping, no duplicate records", () => {
  it("a hand-off rate hovering around the line changes state once (to amber), not at every crossing", () => {
    const rates = Array.from({ length: 30 }, (_, i) => (i % 2 ? 0.105 : 0.095));
    const { transitions } = replayArrivals(rates.map((r, i) => step(i, { handoffs: r * 100 * 10, rollouts: 1000 })));
    expect(of(transitions, "handoff")).toEqual(["green→amber@0"]);
  });

  it("once red, dipping just under the line (inside the exit margin) keeps it red", () => {
    const rates = [0.12, 0.12, 0.12, ...Array.from({ length: 20 }, (_, i) => (i % 2 ? 0.11 : 0.095))];
    const { transitions } = replayArrivals(rates.map((r, i) => step(i, { handoffs: r * 1000, rollouts: 1000 })));
    expect(of(transitions, "handoff")).toEqual(["green→amber@0", "amber→red@2"]);
  });

  it("re-evaluating the same data records nothing and keeps the time of the last change", () => {
    const steps = [0.12, 0.12, 0.12].map((r, i) => step(i, { handoffs: r * 100 }));
    const computed = computeAlarmStatuses(rules, { steps, audit: [], auditWindow: 500, minEvidence: ANY });
    const first = planRunUpdate([], computed, {
      runId: "r",
      ruleHashes: hashes,
      fingerprint: "a",
      now: new Date(1000),
    });
    expect(first.transitions.map((t) => `${t.alarm}:${t.from}→${t.to}`)).toEqual(["handoff:green→red"]);
    const again = planRunUpdate(first.rows, computed, {
      runId: "r",
      ruleHashes: hashes,
      fingerprint: "a",
      now: new Date(5000),
    });
    expect(again.transitions).toEqual([]);
    const row = again.rows.find((r) => r.alarm === "handoff")!;
    expect(row.changedAt).toEqual(new Date(1000));
    expect(row.evaluatedAt).toEqual(new Date(5000));
  });

  it("a run first seen already red is a change from green (posted once); a run with no data stays green, unevaluated", () => {
    const red = computeAlarmStatuses(rules, {
      steps: [0.2, 0.2, 0.2].map((r, i) => step(i, { handoffs: r * 100 })),
      audit: [],
      auditWindow: 500,
      minEvidence: ANY,
    });
    const p = planAlarmUpdate(null, red.handoff, {
      runId: "r",
      alarm: "handoff",
      ruleHash: "h",
      fingerprint: "f",
      now: new Date(7),
    });
    expect(p.transition).toMatchObject({ from: "green", to: "red", step: 2, value: 0.2 });
    const none = computeAlarmStatuses(rules, { steps: [], audit: [], auditWindow: 500 });
    const q = planRunUpdate([], none, { runId: "r", ruleHashes: hashes, fingerprint: "f", now: new Date(7) });
    expect(q.transitions).toEqual([]);
    expect(q.rows.every((r) => r.state === "green" && r.atStep === null)).toBe(true);
  });

  it("steps with fewer than 30 rollouts are not judged (a partial first step cannot raise the alarm)", () => {
    const computed = computeAlarmStatuses(rules, {
      steps: [0, 1, 2, 3].map((s) => step(s, { rollouts: 10, handoffs: 9 })),
      audit: [],
      auditWindow: 500,
      minEvidence: ANY,
    });
    expect(computed.handoff).toMatchObject({ state: "green", at: null });
  });
});

describe("a run's minimum evidence", () => {
  const breaching = (n: number, rollouts = 100) =>
    Array.from({ length: n }, (_, i) => step(i, { rollouts, handoffs: 0.5 * rollouts, trained: 1, trainedDiffers: 1 }));

  it("a toy run (ten rollouts; 96 rollouts over 3 steps) is not judged: every alarm green, nothing evaluated, says why", () => {
    for (const steps of [[step(0, { rollouts: 10, handoffs: 10, trained: 4, trainedDiffers: 2 })], breaching(3, 32)]) {
      const computed = computeAlarmStatuses(rules, { steps, audit: [], auditWindow: 500 });
      for (const a of ALARMS) expect(computed[a]).toMatchObject({ state: "green", at: null, since: null });
      expect(computed.handoff.message).toMatch(
        /^not judged: the run has (10 rollouts over 1 logged step|96 rollouts over 3 logged steps); alarms judge a run from 500 rollouts over 5 steps$/,
      );
      const planned = planRunUpdate([], computed, {
        runId: "r",
        ruleHashes: hashes,
        fingerprint: "f",
        now: new Date(1),
      });
      expect(planned.transitions).toEqual([]);
    }
  });

  it("enough rollouts over too few steps is not judged either; at the minimum the alarms judge the whole series", () => {
    const few = computeAlarmStatuses(rules, { steps: breaching(4, 1000), audit: [], auditWindow: 500 });
    expect(few.handoff).toMatchObject({ state: "green", at: null });
    const enough = computeAlarmStatuses(rules, { steps: breaching(5), audit: [], auditWindow: 500 });
    expect(enough.handoff).toMatchObject({ state: "red", since: 2, at: 4 });
    expect(enough.trained_mismatch).toMatchObject({ state: "red", since: 0 });
  });
});

describe("the since-step is the recorded change's", () => {
  it("a state left and re-entered between two evaluations keeps the step of the change the history recorded", () => {
    // red at step 2 (recorded), then amber at 5 and red again at 9 — all before the next evaluation
    const rates = [0.12, 0.12, 0.12, 0.085, 0.085, 0.085, 0.085, 0.12, 0.12, 0.12, 0.12, 0.12];
    const steps = rates.map((r, i) => step(i, { handoffs: r * 100 }));
    const at = (n: number) =>
      computeAlarmStatuses(rules, { steps: steps.slice(0, n), audit: [], auditWindow: 500, minEvidence: ANY });
    const meta = (f: string) => ({ runId: "r", ruleHashes: hashes, fingerprint: f, now: new Date(1) });
    const first = planRunUpdate([], at(3), meta("a"));
    expect(of(first.transitions, "handoff")).toEqual(["green→red@2"]);
    expect(at(12).handoff).toMatchObject({ state: "red", since: 9 });
    const second = planRunUpdate(first.rows, at(12), meta("b"));
    expect(second.transitions).toEqual([]);
    expect(second.rows.find((r) => r.alarm === "handoff")).toMatchObject({ state: "red", sinceStep: 2, atStep: 11 });
  });
});

describe("ledgerRewardByWindow", () => {
  it("pools reward sums and counts into the fixed audit windows", () => {
    const s = [
      step(0, { rewardSum: 10, rewarded: 20 }),
      step(400, { rewardSum: 30, rewarded: 40 }),
      step(500, { rewardSum: 0, rewarded: 0 }),
      step(1200, { rewardSum: 5, rewarded: 10 }),
    ];
    expect(ledgerRewardByWindow(s, 500)).toEqual([
      { step: 0, value: 40 / 60, n: 60 },
      { step: 500, value: null, n: 0 },
      { step: 1000, value: 0.5, n: 10 },
    ]);
  });
});

function auditPoint(s: number, over: Partial<AuditPoint>): AuditPoint {
  const p: AuditPoint = {
    step: s,
    stepTo: s + 499,
    reviews: 0,
    compared: 0,
    agreeing: 0,
    agreement: null,
    slots: 0,
    correctSlots: 0,
    extraction: null,
    humanSuccesses: 0,
    humanSuccess: null,
    ...over,
  };
  p.agreement = wilson(p.agreeing, p.compared);
  p.extraction = wilson(p.correctSlots, p.slots);
  p.humanSuccess = wilson(p.humanSuccesses, p.reviews);
  return p;
}
