import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  alarmTimeline,
  evaluateAlarm,
  stepSeries,
  type AlarmStatus,
  type BandRule,
  type CeilingRule,
  type FloorRule,
  type RewardHackingRule,
} from "@/lib/stats/alarms.ts";
import {
  GROUP_STD_ALARM,
  GUARDRAIL_HIT_RATE_ALARM,
  HANDOFF_RATE_ALARM,
  MIN_GROUPS_PER_STEP,
  REWARD_HACKING_ALARM,
} from "@/lib/stats/alarm-presets.ts";
import { leastSquaresSlope, type StepPoint } from "@/lib/stats/trend.ts";

const handoff: CeilingRule = {
  kind: "ceiling",
  label: "hand-off rate",
  ceiling: 0.1,
  warnAt: 0.08,
  exitMargin: 0.01,
  enterAfter: 3,
  exitAfter: 3,
};
const at = (values: (number | null)[], n?: number): StepPoint[] =>
  values.map((value, i) => ({ step: (i + 1) * 100, value, n }));
const states = (timeline: AlarmStatus[]) => timeline.map((s) => s.state[0]).join("");

describe("ceiling rule (hand-off rate, alarm at 10%)", () => {
  it("stays green under the warning line", () => {
    const s = evaluateAlarm(handoff, at([0.05, 0.06, 0.07]));
    expect(s).toMatchObject({
      state: "green",
      since: null,
      at: 300,
      value: 0.07,
      message: "hand-off rate 7%: healthy",
    });
  });

  it("turns amber at the warning line, and red only after 3 consecutive steps above the ceiling", () => {
    const t = alarmTimeline(handoff, at([0.05, 0.09, 0.12, 0.12, 0.12]));
    expect(states(t)).toBe("gaaar");
    expect(t[2].message).toBe("hand-off rate 12%: above the 10% ceiling for 1 of the 3 evaluations that turn it red");
    expect(t[4]).toMatchObject({
      state: "red",
      since: 500,
      message: "hand-off rate 12%: above the 10% ceiling for 3 consecutive evaluations",
    });
  });

  it("a breach streak that is interrupted starts over", () => {
    expect(states(alarmTimeline(handoff, at([0.12, 0.12, 0.095, 0.12, 0.12, 0.12])))).toBe("aaaaar");
  });

  it("leaves red only when clear of the ceiling by the margin for 3 steps; then amber until clear of the warning line", () => {
    // After red: 0.095 is under the ceiling but not by the 0.01 margin → still red. 0.085 ×3 clears red (≤ 0.09)
    // but not amber (≤ 0.07) → amber. 0.06 ×3 → green.
    const t = alarmTimeline(handoff, at([0.12, 0.12, 0.12, 0.095, 0.085, 0.085, 0.085, 0.06, 0.06, 0.06]));
    expect(states(t)).toBe("aarrrraaag");
    expect(t[3].message).toBe(
      "hand-off rate 9.5%: red until clear of the line by the exit margin for 3 evaluations (0 so far)",
    );
    expect(t[6]).toMatchObject({ state: "amber", since: 700 });
    expect(t[8].message).toBe("hand-off rate 6%: recovering, clear for 2 of 3 evaluations");
    expect(t[9]).toMatchObject({ state: "green", since: 1000 });
  });

  it("goes from red straight to green when it falls clear of both lines", () => {
    expect(states(alarmTimeline(handoff, at([0.2, 0.2, 0.2, 0.05, 0.05, 0.05])))).toBe("aarrrg");
  });

  it("with enterAfter 1 turns red on the first breach", () => {
    expect(states(alarmTimeline({ ...handoff, enterAfter: 1 }, at([0.05, 0.11])))).toBe("gr");
  });

  it("does not flap on a noisy series hovering around the ceiling", () => {
    const noisy = [0.105, 0.095, 0.104, 0.097, 0.106, 0.092, 0.101, 0.099, 0.103, 0.096, 0.108, 0.094];
    const t = alarmTimeline(handoff, at(noisy));
    expect(states(t)).toBe("aaaaaaaaaaaa");
    // A bare threshold would change its verdict on every step.
    const naive = noisy.map((v) => v > 0.1);
    expect(naive.filter((x, i) => i > 0 && x !== naive[i - 1]).length).toBe(11);
  });

  it("does not flap around the exit line either", () => {
    const t = alarmTimeline(handoff, at([0.15, 0.15, 0.15, 0.089, 0.091, 0.088, 0.092, 0.087, 0.093, 0.089, 0.09]));
    expect(states(t)).toBe("aarrrrrrrrr");
  });

  it("skips points from fewer than minN items and points with no value, without breaking a run", () => {
    const rule = { ...handoff, minN: 30 };
    const pts: StepPoint[] = [
      { step: 1, value: 0.12, n: 40 },
      { step: 2, value: 0.0, n: 3 }, // too few: skipped
      { step: 3, value: null, n: 40 }, // no value: skipped
      { step: 4, value: 0.12, n: 40 },
      { step: 5, value: 0.12, n: 40 },
    ];
    const t = alarmTimeline(rule, pts);
    expect(t.map((s) => s.at)).toEqual([1, 4, 5]);
    expect(t[2].state).toBe("red");
  });

  it("resumes from a previous status: only later points are evaluated", () => {
    const pts = at([0.12, 0.12, 0.12, 0.05, 0.05]);
    const first = evaluateAlarm(handoff, pts.slice(0, 3));
    expect(first).toMatchObject({ state: "red", at: 300 });
    const resumed = evaluateAlarm(handoff, pts, first);
    expect(resumed).toEqual(evaluateAlarm(handoff, pts));
    expect(resumed).toMatchObject({ state: "red", runs: { clearRed: 2 } });
    // Nothing new: the previous status comes back unchanged.
    expect(evaluateAlarm(handoff, pts, resumed)).toBe(resumed);
    expect(evaluateAlarm(handoff, [])).toMatchObject({ state: "green", at: null, message: "no evaluation yet" });
  });

  it("property: evaluating in two calls equals evaluating in one", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.integer({ min: 0, max: 200 }).map((x) => x / 1000),
          { maxLength: 40 },
        ),
        fc.nat(40),
        (values, cut) => {
          const pts = at(values);
          const part = evaluateAlarm(handoff, pts.slice(0, cut));
          expect(evaluateAlarm(handoff, pts, part)).toEqual(evaluateAlarm(handoff, pts));
        },
      ),
    );
  });

  it("property: red is entered only after enterAfter breaches, and a state is left only after exitAfter clear steps", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.integer({ min: 60, max: 140 }).map((x) => x / 1000),
          { minLength: 1, maxLength: 60 },
        ),
        (values) => {
          const t = alarmTimeline(handoff, at(values));
          for (let i = 0; i < t.length; i++) {
            const before = i === 0 ? "green" : t[i - 1].state;
            const now = t[i].state;
            if (now === "red" && before !== "red") expect(values.slice(i - 2, i + 1).every((v) => v > 0.1)).toBe(true);
            if (before === "red" && now !== "red")
              expect(values.slice(i - 2, i + 1).every((v) => v <= 0.09 + 1e-12)).toBe(true);
            if (before === "amber" && now === "green")
              expect(values.slice(i - 2, i + 1).every((v) => v <= 0.07 + 1e-12)).toBe(true);
          }
        },
      ),
    );
  });
});

describe("floor rule (within-group reward std, alarm below 0.05)", () => {
  const floor: FloorRule = {
    kind: "floor",
    label: "within-group reward std",
    floor: 0.05,
    warnAt: 0.06,
    exitMargin: 0.005,
    enterAfter: 3,
    exitAfter: 2,
  };

  it("enters and leaves each state", () => {
    // 0.08 green; 0.058 amber (< 0.06); 0.04 ×3 red; 0.054 holds red (not ≥ 0.055);
    // 0.056 ×2 → amber (not ≥ 0.065); 0.07 ×2 → green
    const t = alarmTimeline(floor, at([0.08, 0.058, 0.04, 0.04, 0.04, 0.054, 0.056, 0.056, 0.07, 0.07]));
    expect(states(t)).toBe("gaaarrraag");
    expect(t[4].message).toBe("within-group reward std 0.04: below the 0.05 floor for 3 consecutive evaluations");
    expect(t[1].message).toBe("within-group reward std 0.058: approaching the 0.05 floor");
  });

  it("uses default lines from the floor: warn at 1.2 × floor", () => {
    const rule: FloorRule = { kind: "floor", label: "std", floor: 0.05 };
    expect(states(alarmTimeline(rule, at([0.061, 0.059])))).toBe("ga");
  });
});

describe("band rule (guardrail hit rate healthy 10–30%)", () => {
  const band: BandRule = {
    kind: "band",
    label: "guardrail hit rate",
    low: 0.1,
    high: 0.3,
    warnMargin: 0.02,
    exitMargin: 0.02,
    enterAfter: 2,
    exitAfter: 2,
  };

  it("alarms below and above the band, and counts a jump across it as one breach streak", () => {
    // 0.2 green; 0.11 amber (within 0.02 of 10%); 0.05, 0.35 red (outside, below then above);
    // 0.13, 0.13 amber (inside by the 0.02 margin, still in the warning zone); 0.2, 0.2 green
    const t = alarmTimeline(band, at([0.2, 0.11, 0.05, 0.35, 0.13, 0.13, 0.2, 0.2]));
    expect(states(t)).toBe("gaarraag");
    expect(t[3].message).toBe("guardrail hit rate 35%: outside the 10–30% band for 2 consecutive evaluations");
    expect(t[1].message).toBe("guardrail hit rate 11%: near the edge of the 10–30% band");
  });

  it("counts a value exactly at the line minus the margin as clear, despite float rounding (0.1 + 0.02)", () => {
    expect(states(alarmTimeline(band, at([0.05, 0.05, 0.12, 0.12])))).toBe("arra");
  });

  it("does not flap at the upper edge", () => {
    expect(states(alarmTimeline(band, at([0.29, 0.31, 0.29, 0.31, 0.295, 0.305])))).toBe("aaaaaa");
  });

  it("rejects an empty band", () => {
    expect(() => evaluateAlarm({ ...band, low: 0.3, high: 0.1 }, [])).toThrow(RangeError);
  });
});

describe("reward-hacking rule", () => {
  const rule: RewardHackingRule = {
    kind: "reward-hacking",
    label: "reward hacking",
    window: 500,
    minSlope: 1e-4,
    maxHumanSlope: -5e-5,
    minPoints: 3,
    enterAfter: 2,
    exitAfter: 2,
  };
  const steps = Array.from({ length: 20 }, (_, i) => (i + 1) * 100);
  const ledger = steps.map((step) => ({ step, value: 0.5 + 0.0002 * step, n: 400 }));

  it("alarms when ledger reward rises while human agreement falls over the same window", () => {
    // Human agreement flat at 88% until step 1000, then −2 points per 100 steps. Window (t − 500, t]:
    // at 1100 the human slope is −4e-5 (not below −5e-5); at 1200 it is −1e-4 → breach; 1300 → second breach → red.
    const human = steps.map((step) => ({ step, value: step <= 1000 ? 0.88 : 0.88 - 0.0002 * (step - 1000), n: 40 }));
    const t = alarmTimeline(rule, { ledger, human });
    const byStep = Object.fromEntries(t.map((s) => [s.at, s.state]));
    expect(byStep[1100]).toBe("green");
    expect(byStep[1200]).toBe("amber");
    expect(byStep[1300]).toBe("red");
    expect(byStep[2000]).toBe("red");
    expect(t.find((s) => s.at === 1300)!.message).toBe(
      // human window 900–1300: 0.88, 0.88, 0.86, 0.84, 0.82 → slope −16/100000 = −0.16 per 1k steps
      "ledger reward +0.20 per 1k steps while human agreement −0.16 per 1k steps: the ledger is diverging from the human measure for 2 consecutive evaluations",
    );
    expect(t.find((s) => s.at === 1300)!.value).toBeCloseTo(2e-4, 12);
  });

  it("stays green when reward rises and humans agree it got better", () => {
    const human = steps.map((step) => ({ step, value: 0.6 + 0.0001 * step, n: 40 }));
    expect(alarmTimeline(rule, { ledger, human }).every((s) => s.state === "green")).toBe(true);
  });

  it("recovers when the human measure stops falling", () => {
    const human = steps.map((step) => ({
      step,
      value: step <= 1500 ? 0.9 - 0.0002 * step : 0.6 + 0.0003 * (step - 1500),
      n: 40,
    }));
    const t = alarmTimeline(rule, { ledger, human });
    expect(t.find((s) => s.at === 1000)!.state).toBe("red");
    expect(t[t.length - 1].state).toBe("green");
  });

  it("property: the value is the least-squares slope of the ledger points in the window", () => {
    const point = fc.record({
      step: fc.integer({ min: 1, max: 3000 }),
      value: fc.integer({ min: 0, max: 100 }).map((x) => x / 100),
    });
    fc.assert(
      fc.property(fc.array(point, { maxLength: 40 }), fc.array(point, { maxLength: 40 }), (l, h) => {
        const open = { ...rule, minSlope: -1, maxHumanSlope: 1, minPoints: 2 };
        for (const s of alarmTimeline(open, { ledger: l, human: h })) {
          const window = l.filter((p) => p.step > s.at! - open.window && p.step <= s.at!);
          expect(s.value).toBeCloseTo(leastSquaresSlope(window)!, 9);
        }
      }),
    );
  });

  it("does not evaluate without minPoints of each series in the window", () => {
    const sparseHuman = [
      { step: 1000, value: 0.9 },
      { step: 2000, value: 0.5 },
    ];
    expect(evaluateAlarm(rule, { ledger, human: sparseHuman })).toMatchObject({ state: "green", at: null });
  });
});

describe("stepSeries", () => {
  it("turns counts into per-step rates, merging repeated steps and sorting", () => {
    expect(
      stepSeries([
        { step: 200, k: 1, n: 10 },
        { step: 100, k: 2, n: 20 },
        { step: 200, k: 3, n: 10 },
        { step: 300, k: 0, n: 0 },
      ]),
    ).toEqual([
      { step: 100, value: 0.1, n: 20 },
      { step: 200, value: 0.2, n: 20 },
      { step: 300, value: null, n: 0 },
    ]);
  });
});

describe("presets", () => {
  it("the hand-off preset follows the 8% → 41% story into red", () => {
    const rows = [8, 9, 9, 10, 12, 15, 19, 24].map((pct, i) => ({ step: (i + 1) * 1000, k: pct * 5, n: 500 }));
    const t = alarmTimeline(HANDOFF_RATE_ALARM, stepSeries(rows));
    expect(states(t)).toBe("gaaaaarr");
  });

  it("every preset is a valid rule", () => {
    for (const rule of [HANDOFF_RATE_ALARM, GUARDRAIL_HIT_RATE_ALARM, GROUP_STD_ALARM])
      expect(evaluateAlarm(rule, []).state).toBe("green");
    expect(evaluateAlarm(REWARD_HACKING_ALARM, { ledger: [], human: [] }).state).toBe("green");
  });

  it("rejects invalid hysteresis settings", () => {
    expect(() => evaluateAlarm({ ...handoff, enterAfter: 0 }, [])).toThrow(RangeError);
    expect(() => evaluateAlarm({ ...handoff, exitAfter: 1.5 }, [])).toThrow(RangeError);
    expect(() => evaluateAlarm({ ...handoff, exitMargin: -0.1 }, [])).toThrow(RangeError);
  });
});

describe("within-group std alarm: a minimum number of groups per step", () => {
  const std = (values: number[], groups: number): StepPoint[] =>
    values.map((value, i) => ({ step: (i + 1) * 100, value, n: groups }));

  it("judges a step with exactly the minimum, and calls one group fewer 'not enough groups' without moving", () => {
    expect(MIN_GROUPS_PER_STEP).toBe(10);
    // three flat steps at the minimum turn it red
    expect(states(alarmTimeline(GROUP_STD_ALARM, std([0, 0, 0], MIN_GROUPS_PER_STEP)))).toBe("aar");
    // the same values from one group fewer are not judged: green stays green, and the status says why
    const short = alarmTimeline(GROUP_STD_ALARM, std([0, 0, 0], MIN_GROUPS_PER_STEP - 1));
    expect(states(short)).toBe("ggg");
    expect(short.map((s) => s.at)).toEqual([100, 200, 300]);
    expect(short[2]).toMatchObject({ since: null, value: null, runs: { breach: 0, warn: 0 } });
    expect(short[2].message).toBe(
      "within-group reward std: not enough groups at step 300 (9, fewer than the 10 an evaluation needs); stays green",
    );
  });

  it("a short step neither extends nor breaks a run, and a red alarm stays red through it", () => {
    const pts: StepPoint[] = [
      { step: 1, value: 0.01, n: 40 },
      { step: 2, value: 0.01, n: 40 },
      { step: 3, value: 0.2, n: 2 }, // not enough groups: no clear reading
      { step: 4, value: 0.01, n: 40 },
      { step: 5, value: 0.2, n: 0 }, // no groups at all
    ];
    const t = alarmTimeline(GROUP_STD_ALARM, pts);
    expect(states(t)).toBe("aaarr");
    expect(t[3]).toMatchObject({ state: "red", since: 4, value: 0.01 });
    expect(t[4]).toMatchObject({ state: "red", since: 4, value: 0.01, at: 5, runs: t[3].runs });
    expect(t[4].message).toMatch(/^within-group reward std: not enough groups at step 5 \(0, .*; stays red$/);
  });

  it("rules without a unit still skip short points unseen", () => {
    const { minNUnit: _unit, ...silent } = GROUP_STD_ALARM;
    void _unit;
    expect(alarmTimeline(silent, std([0, 0, 0], MIN_GROUPS_PER_STEP - 1))).toEqual([]);
  });
});
