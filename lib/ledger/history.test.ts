import { describe, expect, it } from "vitest";
import { describeChanges, type Version } from "@/lib/ledger/history.ts";

const base: Version = {
  reward: 0.55,
  decidingGuardrail: "missing_evidence",
  guardrails: ["missing_evidence"],
  configHash: "sha256:a",
  status: "scored",
  outcome: 1,
  policy: 1,
  evidence: 0.5,
  efficiency: 1,
  communication: 1,
};

describe("describeChanges", () => {
  it("lists reward, deciding guardrail, guardrail set, sub-score and config changes", () => {
    const next: Version = {
      ...base,
      reward: 0.9,
      decidingGuardrail: null,
      guardrails: [],
      evidence: 0.5,
      configHash: "sha256:b",
    };
    expect(describeChanges(base, next)).toEqual([
      "reward 0.550 → 0.900",
      "deciding missing_evidence → none",
      "−missing_evidence",
      "other config",
    ]);
  });
  it("marks guardrails added and sub-scores moved", () => {
    const next: Version = { ...base, guardrails: ["missing_evidence", "policy_error"], policy: 0.5 };
    expect(describeChanges(base, next)).toEqual(["+policy_error", "policy 1.000 → 0.500"]);
  });
  it("says so when nothing changed", () => {
    expect(describeChanges(base, { ...base })).toEqual(["no change in scores"]);
  });
  it("shows error records without a reward", () => {
    expect(describeChanges(base, { ...base, status: "spec_error", reward: null })[0]).toBe(
      "status scored → spec_error",
    );
  });
});
