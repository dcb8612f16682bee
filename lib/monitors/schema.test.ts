import { describe, expect, it } from "vitest";
import { alarmRules, ruleHash } from "@/lib/monitors/rules.ts";
import {
  chartQueryMessages,
  parseChartQuery,
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
  const errorsOf = (input: URLSearchParams | Record<string, string | string[]>) => {
    const r = parseChartQuery(input);
    return r.ok ? null : { fields: r.errors.fields, other: r.errors.other, query: r.query };
  };

  it("parses range, comparison and smoothing; an empty value is not given", () => {
    expect(parseChartQuery({ from: "750", to: "3000", compare: "b", smooth: "5" })).toEqual({
      ok: true,
      query: { from: 750, to: 3000, compare: "b", smooth: 5 },
    });
    expect(parseChartQuery(new URLSearchParams("from=&to=3000&compare=&smooth="))).toEqual({
      ok: true,
      query: { to: 3000 },
    });
  });

  it("names each bad value at its parameter and keeps the good ones", () => {
    expect(errorsOf({ from: "abc", to: "3000" })).toEqual({
      fields: { from: "must be a whole number of steps, 0 or more" },
      other: [],
      query: { to: 3000 },
    });
    expect(errorsOf({ to: "-1" })?.fields).toEqual({ to: "must be a whole number of steps, 0 or more" });
    expect(errorsOf({ to: "1.5" })?.fields).toEqual({ to: "must be a whole number of steps, 0 or more" });
    expect(errorsOf({ to: "2147483648" })?.fields).toEqual({ to: "must be at most 2147483647" });
    expect(errorsOf({ smooth: "7", from: "0" })).toEqual({
      fields: { smooth: "must be one of 1, 3, 5, 10 (1 is none)" },
      other: [],
      query: { from: 0 },
    });
    expect(errorsOf({ compare: "x".repeat(201) })?.fields).toEqual({ compare: "must be at most 200 characters" });
  });

  it("refuses a reversed range at from, and shows neither end", () => {
    expect(errorsOf({ from: "3000", to: "750", smooth: "3" })).toEqual({
      fields: { from: "must not be after to" },
      other: [],
      query: { smooth: 3 },
    });
  });

  it("refuses a parameter given twice, from a URL or from Next's searchParams", () => {
    expect(errorsOf(new URLSearchParams("smooth=3&smooth=5&from=10"))).toEqual({
      fields: { smooth: "is given more than once; give it once" },
      other: [],
      query: { from: 10 },
    });
    expect(errorsOf({ compare: ["a", "b"] })?.fields).toEqual({ compare: "is given more than once; give it once" });
  });

  it("refuses unknown parameters by name", () => {
    expect(errorsOf(new URLSearchParams("colour=red&from=5"))).toEqual({
      fields: {},
      other: ['unknown parameter "colour" (the run page takes from, to, compare, smooth)'],
      query: { from: 5 },
    });
  });

  it("says each error as one sentence per parameter for a 400", () => {
    const r = parseChartQuery({ from: "x", smooth: "2", zoom: "1" });
    expect(r.ok ? [] : chartQueryMessages(r.errors)).toEqual([
      "from: must be a whole number of steps, 0 or more",
      "smooth: must be one of 1, 3, 5, 10 (1 is none)",
      'unknown parameter "zoom" (the run page takes from, to, compare, smooth)',
    ]);
  });
});
