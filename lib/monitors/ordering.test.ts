import { describe, expect, it } from "vitest";
import { orderingPoints, orderingSeries, type OrderingJudgement } from "@/lib/monitors/ordering.ts";
import { alarmRules } from "@/lib/monitors/rules.ts";
import { DEFAULT_THRESHOLDS } from "@/lib/monitors/schema.ts";
import { alarmTimeline } from "@/lib/stats/alarms.ts";

const j = (step: number, verdict: OrderingJudgement["verdict"], side: OrderingJudgement["side"] = "left") => ({
  step,
  verdict,
  side,
  inclusionProb: 0.5,
});
/** `agree` agreeing and `inv` inverted judgements (and `ties` ties) at `step`. */
const window = (step: number, agree: number, inv: number, ties = 0): OrderingJudgement[] => [
  ...Array.from({ length: agree }, () => j(step, "agree")),
  ...Array.from({ length: inv }, () => j(step, "inversion", "right")),
  ...Array.from({ length: ties }, () => j(step, "tie", "tie")),
];

describe("ordering agreement per audit window", () => {
  it("pools judgements into fixed windows, ties and unordered pairs apart, with the Wilson interval", () => {
    const points = orderingPoints(
      [...window(2999, 8, 2, 3), ...window(0, 1, 0), j(3000, "ledger_tie"), j(3001, "agree")],
      3000,
    );
    expect(points.map((p) => [p.step, p.stepTo, p.judgements, p.agree, p.inversions, p.ties])).toEqual([
      [0, 2999, 14, 9, 2, 3],
      [3000, 5999, 2, 1, 0, 0],
    ]);
    // 9 of 11: Wilson 95% by hand, centre (p + z²/2n) / (1 + z²/n), z = 1.959964
    const z = 1.959963984540054;
    const [n, p] = [11, 9 / 11];
    const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
    const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
    expect(points[0].agreement!.estimate).toBeCloseTo(9 / 11, 12);
    expect(points[0].agreement!.lower).toBeCloseTo(centre - half, 10);
    expect(orderingSeries(points)).toEqual([
      { step: 0, value: points[0].agreement!.lower, n: 11 },
      { step: 3000, value: points[1].agreement!.lower, n: 1 },
    ]);
    expect(orderingPoints([j(10, "tie", "tie")], 500)[0].agreement).toBeNull();
  });

  it("alarms when the lower bound stays below the floor for two windows with enough ordered judgements", () => {
    const rule = alarmRules({ ...DEFAULT_THRESHOLDS }).ordering;
    expect(rule.floor).toBe(0.8);
    // 40 of 40, then 33 of 40 (lower bound 0.68) twice: red at the second
    const series = orderingSeries(
      orderingPoints([...window(0, 40, 0), ...window(500, 33, 7), ...window(1000, 33, 7)], 500),
    );
    const states = alarmTimeline(rule, series).map((s) => s.state);
    expect(states.at(-1)).toBe("red");
    expect(alarmTimeline(rule, series.slice(0, 2)).at(-1)!.state).toBe("amber");
  });

  it("does not judge a window with fewer than 30 ordered judgements, however low its bound", () => {
    const rule = alarmRules({ ...DEFAULT_THRESHOLDS }).ordering;
    // 29 ordered judgements with 10 inversions (and 20 ties, which do not count): bound 0.48, still not enough
    const points = orderingPoints([...window(0, 19, 10, 20), ...window(500, 19, 10, 20), ...window(1000, 19, 10)], 500);
    const last = alarmTimeline(rule, orderingSeries(points)).at(-1)!;
    expect(last.state).toBe("green");
    expect(last.message).toMatch(/not enough ordered judgements/);
    // a floor moved by the run's thresholds moves the rule
    expect(alarmRules({ ...DEFAULT_THRESHOLDS, orderingFloor: 0.6 }).ordering.floor).toBe(0.6);
  });
});
