import { describe, expect, it } from "vitest";
import { alarmRules, ruleHash } from "@/lib/monitors/rules.ts";
import {
  chartQuerySchema,
  DEFAULT_THRESHOLDS,
  resolveThresholds,
  thresholdOverrides,
  thresholdsFormSchema,
} from "@/lib/monitors/schema.ts";
import { GROUP_STD_ALARM, GUARDRAIL_HIT_RATE_ALARM, HANDOFF_RATE_ALARM } from "@/lib/stats/alarm-presets.ts";

describe("thresholds", () => {
  it("the form takes rates in percent, blank fields as defaults", () => {
    const r = thresholdsFormSchema.parse({
      runId: "r",
      hitRateLow: "12.5",
      hitRateHigh: "",
      handoffCeiling: "15",
      groupStdFloor: "0.03",
      extractionFloor: "",
    });
    expect(r).toEqual({
      runId: "r",
      thresholds: { ...DEFAULT_THRESHOLDS, hitRateLow: 0.125, handoffCeiling: 0.15, groupStdFloor: 0.03 },
    });
  });

  it("refuses a band whose edges are reversed, rates over 100%, a non-number, a zero window", () => {
    const bad = (v: Record<string, string>) => thresholdsFormSchema.safeParse({ runId: "r", ...v });
    const paths = (v: Record<string, string>) => {
      const p = bad(v);
      return p.success ? [] : p.error.issues.map((i) => i.path.join("."));
    };
    expect(paths({ hitRateLow: "40", hitRateHigh: "30" })).toEqual(["thresholds.hitRateHigh"]);
    expect(paths({ handoffCeiling: "150" })).toEqual(["thresholds.handoffCeiling"]);
    expect(paths({ groupStdFloor: "abc" })).toEqual(["groupStdFloor"]);
    expect(paths({ auditWindow: "0" })).toEqual(["thresholds.auditWindow"]);
    expect(bad({ runId: "" }).success).toBe(false);
  });

  it("stores only overrides, and resolves stored overrides over the defaults; invalid stored JSON falls back", () => {
    expect(thresholdOverrides({ ...DEFAULT_THRESHOLDS })).toBeNull();
    expect(thresholdOverrides({ ...DEFAULT_THRESHOLDS, handoffCeiling: 0.2 })).toEqual({ handoffCeiling: 0.2 });
    expect(resolveThresholds({ handoffCeiling: 0.2 })).toEqual({
      thresholds: { ...DEFAULT_THRESHOLDS, handoffCeiling: 0.2 },
      invalid: false,
    });
    expect(resolveThresholds(null).invalid).toBe(false);
    expect(resolveThresholds({ handoffCeiling: "x" })).toEqual({
      thresholds: { ...DEFAULT_THRESHOLDS },
      invalid: true,
    });
    expect(resolveThresholds({ hitRateLow: 0.5 })).toEqual({ thresholds: { ...DEFAULT_THRESHOLDS }, invalid: true });
    expect(resolveThresholds({ typo: 1 }).invalid).toBe(true);
  });

  it("the default thresholds give the presets of lib/stats", () => {
    const r = alarmRules({ ...DEFAULT_THRESHOLDS });
    expect(r.handoff).toEqual(HANDOFF_RATE_ALARM);
    expect(r.group_std).toEqual(GROUP_STD_ALARM);
    expect(r.hit_rate).toEqual(GUARDRAIL_HIT_RATE_ALARM);
    expect(ruleHash(r.handoff)).toBe(ruleHash({ ...HANDOFF_RATE_ALARM }));
    expect(ruleHash(alarmRules({ ...DEFAULT_THRESHOLDS, handoffCeiling: 0.2 }).handoff)).not.toBe(ruleHash(r.handoff));
  });
});

describe("chart query", () => {
  it("parses range, comparison and smoothing; swaps a reversed range; drops bad values", () => {
    expect(chartQuerySchema.parse({ from: "750", to: "3000", compare: "b", smooth: "5" })).toEqual({
      from: 750,
      to: 3000,
      compare: "b",
      smooth: 5,
    });
    expect(chartQuerySchema.parse({ from: "3000", to: "750" })).toMatchObject({ from: 750, to: 3000 });
    expect(chartQuerySchema.parse({ from: "abc", to: "-1", smooth: "999", compare: "" })).toEqual({
      from: undefined,
      to: undefined,
      compare: undefined,
      smooth: undefined,
    });
  });
});
