// The probe report's figures against a hand computation: per line and overall, the mean shift with its t interval,
// the flips with their Wilson interval, the mean absolute difference; incomplete pairs counted apart; a line nobody
// probed reads n = 0 and does not move; a retest has no lines.
import { describe, expect, it } from "vitest";
import { rerunReport } from "@/lib/leaderboard/reruns.ts";
import { PROBE_LINES } from "@/lib/rewards/probes.ts";

const Z = 1.959963984540054;
// Student's t 0.975 quantiles from the published table (df 3 and 7).
const T975 = { 3: 3.182446305284263, 7: 2.364624251592785 } as Record<number, number>;

function wilson(k: number, n: number): [number, number] {
  const p = k / n;
  const centre = p + (Z * Z) / (2 * n);
  const half = Z * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n));
  const d = 1 + (Z * Z) / n;
  return [(centre - half) / d, (centre + half) / d];
}

function tInterval(diffs: number[]): [number, number] {
  const n = diffs.length;
  const m = diffs.reduce((s, d) => s + d, 0) / n;
  const sd = Math.sqrt(diffs.reduce((s, d) => s + (d - m) ** 2, 0) / (n - 1));
  const half = (T975[n - 1] * sd) / Math.sqrt(n);
  return [m - half, m + half];
}

const EN = [
  { probeLine: "instruction-en", first: 0.5, second: 1 },
  { probeLine: "instruction-en", first: 0.7, second: 1 },
  { probeLine: "instruction-en", first: 0.95, second: 1 },
  { probeLine: "instruction-en", first: 0.2, second: 0.9 },
];
const ZH = [
  { probeLine: "refund-claim-zh", first: 0.5, second: 0.5 },
  { probeLine: "refund-claim-zh", first: 0.7, second: 0.72 },
  { probeLine: "refund-claim-zh", first: 0.95, second: 0.93 },
  { probeLine: "refund-claim-zh", first: 0.2, second: 0.2 },
  { probeLine: "refund-claim-zh", first: null, second: 0.4 },
];

describe("rerunReport", () => {
  const r = rerunReport(7, "probe", [...EN, ...ZH]);
  const line = (id: string) => r.lines.find((l) => l.line.id === id)!.summary;

  it("gives each line's mean shift (t interval), flips (Wilson) and mean absolute difference", () => {
    const en = line("instruction-en");
    // Differences 0.5, 0.3, 0.05, 0.7: mean 0.3875; three verdicts cross 0.9 (0.2 -> 0.9 passes at 0.9).
    expect(en.n).toBe(4);
    expect(en.meanShift.value).toBeCloseTo(0.3875, 12);
    const [lo, hi] = tInterval([0.5, 0.3, 0.05, 0.7]);
    expect(en.meanShift.interval!.lower).toBeCloseTo(lo, 10);
    expect(en.meanShift.interval!.upper).toBeCloseTo(hi, 10);
    expect(lo).toBeCloseTo(-0.054885, 5);
    expect([en.flips.k, en.flips.n]).toEqual([3, 4]);
    const [wl, wh] = wilson(3, 4);
    expect(en.flips.interval!.lower).toBeCloseTo(wl, 10);
    expect(en.flips.interval!.upper).toBeCloseTo(wh, 10);
    expect(en.mae.value).toBeCloseTo(0.3875, 12);
    expect(en.moved).toBe(true);

    const zh = line("refund-claim-zh");
    expect([zh.n, zh.incomplete, zh.flips.k]).toEqual([4, 1, 0]);
    expect(zh.meanShift.value).toBeCloseTo(0, 12);
    expect(zh.mae.value).toBeCloseTo(0.01, 12);
    expect(zh.moved).toBe(false);
  });

  it("pools every pair overall, lists every line, and flags the report when any line moves", () => {
    expect(r.lines.map((l) => l.line.id)).toEqual(PROBE_LINES.map((l) => l.id));
    const none = line("fake-system-zh");
    expect([none.n, none.meanShift.value, none.moved]).toEqual([0, null, false]);
    const diffs = [0.5, 0.3, 0.05, 0.7, 0, 0.02, -0.02, 0];
    expect([r.overall.n, r.overall.incomplete, r.overall.flips.k]).toEqual([8, 1, 3]);
    expect(r.overall.meanShift.value).toBeCloseTo(diffs.reduce((s, d) => s + d, 0) / 8, 12);
    const [lo, hi] = tInterval(diffs);
    expect(r.overall.meanShift.interval!.lower).toBeCloseTo(lo, 10);
    expect(r.overall.meanShift.interval!.upper).toBeCloseTo(hi, 10);
    const [wl, wh] = wilson(3, 8);
    expect(r.overall.flips.interval!.lower).toBeCloseTo(wl, 10);
    expect(r.overall.flips.interval!.upper).toBeCloseTo(wh, 10);
    expect(r.moved).toBe(true);
    expect(rerunReport(7, "probe", ZH).moved).toBe(false);
  });

  it("has no lines for a retest, and reads the verdict at the threshold given", () => {
    const t = rerunReport(8, "retest", EN, 0.6);
    expect(t.lines).toEqual([]);
    // At 0.6: 0.5 -> 1 and 0.2 -> 0.9 cross.
    expect([t.overall.flips.k, t.threshold]).toEqual([2, 0.6]);
  });
});
