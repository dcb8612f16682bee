import { describe, expect, it } from "vitest";
import { parseGateRulesFile } from "@/lib/gate/schema.ts";

const errors = (text: string) => {
  const r = parseGateRulesFile(text);
  return r.ok ? [] : r.errors;
};

describe("parseGateRulesFile", () => {
  it("takes a documented file, every field optional, false turning a rule off", () => {
    const r = parseGateRulesFile(
      JSON.stringify({ window_steps: 4000, rules: { handoff: { ceiling: 0.08 }, trained_mismatch: false } }),
    );
    expect(r).toEqual({
      ok: true,
      file: { window_steps: 4000, rules: { handoff: { ceiling: 0.08 }, trained_mismatch: false } },
    });
    expect(parseGateRulesFile("{}")).toEqual({ ok: true, file: {} });
  });

  it("names the rule, the field and why", () => {
    expect(errors('{"rules": {"handoff": {"ceiling": 1.5}}}')).toEqual([
      "rule handoff, field ceiling: must be at most 1",
    ]);
    expect(errors('{"rules": {"extraction": {"floor": "high"}}}')).toEqual([
      "rule extraction, field floor: must be a number",
    ]);
    expect(errors('{"rules": {"agreement": {"min_items": 2.5}}}')).toEqual([
      "rule agreement, field min_items: must be a whole number",
    ]);
    expect(errors('{"rules": {"agreement": {"flor": 0.8}}}')).toEqual([
      'rule agreement: unknown field "flor" (it takes floor, min_items, severity)',
    ]);
    // extraction's evidence is items, as the agreement page counts it, not claim slots
    expect(errors('{"rules": {"extraction": {"min_slots": 30}}}')).toEqual([
      'rule extraction: unknown field "min_slots" (it takes floor, min_items, severity)',
    ]);
    expect(errors('{"rules": {"hit_rate": {"severity": "fatal"}}}')).toEqual([
      'rule hit_rate, field severity: must be "stop" or "warn"',
    ]);
    expect(errors('{"rules": {"hacking": {}}}')).toEqual([
      'unknown rule "hacking" (the rules are hit_rate, handoff, agreement, extraction, trained_mismatch, reward_hacking, ordering, ledger_rank)',
    ]);
    expect(errors('{"rules": {"handoff": true}}')).toEqual([
      "rule handoff: must be an object of the rule's fields, or false to turn the rule off",
    ]);
    expect(errors('{"window_steps": 0}')).toEqual(["window_steps: must be 1 or more"]);
    expect(errors('{"windows": 3}')).toEqual([
      'unknown top-level field "windows" (the file takes "window_steps" and "rules")',
    ]);
    expect(errors('{"rules": {"hit_rate": {"low": 0.3, "high": 0.2}}}')).toEqual([
      "rule hit_rate, field high: must be above low",
    ]);
  });

  it("says where the JSON is broken, and that the file is an object", () => {
    expect(errors('{"rules": ')[0]).toMatch(/^not valid JSON: /);
    expect(errors("[1]")).toEqual(['the file must be a JSON object with "rules" (and optionally "window_steps")']);
  });
});

describe("the ledger_rank rule's fields", () => {
  it("takes alpha in (0, 0.5] and min_items, and names a bad one", () => {
    expect(parseGateRulesFile('{"rules": {"ledger_rank": {"alpha": 0.01, "min_items": 50}}}').ok).toBe(true);
    expect(parseGateRulesFile('{"rules": {"ledger_rank": {"alpha": 0}}}')).toEqual({
      ok: false,
      errors: ["rule ledger_rank, field alpha: must be above 0"],
    });
    expect(parseGateRulesFile('{"rules": {"ledger_rank": {"alfa": 0.1}}}')).toEqual({
      ok: false,
      errors: ['rule ledger_rank: unknown field "alfa" (it takes alpha, min_items, severity)'],
    });
  });
});
