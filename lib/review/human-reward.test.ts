import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { humanReward, partialHumanReward, SCORE_STEPS } from "@/lib/review/human-reward.ts";
import { DIMENSIONS, GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { DEFAULT_CONFIG, parseVerifierConfig } from "@/lib/verifier/config.ts";

const all = (v: number) => ({ outcome: v, policy: v, evidence: v, efficiency: v, communication: v });

describe("humanReward", () => {
  it("weights the sub-scores like the verifier (formats §3 example: 0, 0.5, 0, 1, 0 → 0.2)", () => {
    const r = humanReward(
      { outcome: 0, policy: 0.5, evidence: 0, efficiency: 1, communication: 0 },
      [],
      DEFAULT_CONFIG,
    );
    // 0.45·0 + 0.20·0.5 + 0.20·0 + 0.10·1 + 0.05·0 = 0.2
    expect(r).toEqual({ rawReward: 0.2, reward: 0.2, cap: 1, capped: false, decidingGuardrail: null, ignored: [] });
  });

  it("caps at the lowest flagged cap and names it (ties go to table order)", () => {
    const perfect = all(1);
    expect(humanReward(perfect, ["missing_evidence"], DEFAULT_CONFIG)).toMatchObject({
      rawReward: 1,
      reward: 0.55,
      cap: 0.55,
      capped: true,
      decidingGuardrail: "missing_evidence",
    });
    expect(humanReward(perfect, ["missing_evidence", "empty_promise", "policy_error"], DEFAULT_CONFIG)).toMatchObject({
      reward: 0.35,
      decidingGuardrail: "empty_promise",
    });
    // unauthorized_write and duplicate_side_effect both cap at 0.30: the earlier one in table order decides
    expect(humanReward(perfect, ["duplicate_side_effect", "unauthorized_write"], DEFAULT_CONFIG)).toMatchObject({
      reward: 0.3,
      decidingGuardrail: "unauthorized_write",
    });
  });

  it("leaves a raw reward under the cap alone and reports capped only when the cap bites", () => {
    // raw 0.25·… = 0.25 under the 0.55 cap: reward stays 0.25, not capped, but the guardrail still decides the cap
    const r = humanReward(all(0.25), ["missing_evidence"], DEFAULT_CONFIG);
    expect(r).toMatchObject({
      rawReward: 0.25,
      reward: 0.25,
      cap: 0.55,
      capped: false,
      decidingGuardrail: "missing_evidence",
    });
  });

  it("records but ignores flags of guardrails that are off in the config, and uses the config's own caps", () => {
    const r = humanReward(all(1), ["tool_missing"], DEFAULT_CONFIG);
    expect(r).toMatchObject({ reward: 1, cap: 1, decidingGuardrail: null, ignored: ["tool_missing"] });
    const parsed = parseVerifierConfig({
      guardrails: { tool_missing: { on: true, cap: 0.1 } },
      weights: { outcome: 0.5, policy: 0.2, evidence: 0.2, efficiency: 0.05, communication: 0.05 },
    });
    if (!parsed.ok) throw new Error("config");
    expect(humanReward(all(1), ["tool_missing"], parsed.config)).toMatchObject({
      reward: 0.1,
      decidingGuardrail: "tool_missing",
      ignored: [],
    });
    // outcome 1, rest 0 under the custom weights: 0.5
    expect(humanReward({ ...all(0), outcome: 1 }, [], parsed.config).reward).toBe(0.5);
  });

  it("rounds to 6 decimals like the ledger", () => {
    const r = humanReward(
      { outcome: 0.75, policy: 0.25, evidence: 0.5, efficiency: 0.75, communication: 0.25 },
      [],
      DEFAULT_CONFIG,
    );
    // 0.3375 + 0.05 + 0.1 + 0.075 + 0.0125 = 0.575
    expect(r.rawReward).toBe(0.575);
  });

  it("reward <= raw reward and <= every flagged cap that is on; both in [0, 1] (property)", () => {
    const step = fc.constantFrom(...SCORE_STEPS);
    fc.assert(
      fc.property(
        fc.record({ outcome: step, policy: step, evidence: step, efficiency: step, communication: step }),
        fc.subarray([...GUARDRAIL_CODES]),
        (scores, flags) => {
          const r = humanReward(scores, flags, DEFAULT_CONFIG);
          expect(r.reward).toBeLessThanOrEqual(r.rawReward);
          for (const f of flags)
            if (DEFAULT_CONFIG.guardrails[f].on) expect(r.reward).toBeLessThanOrEqual(DEFAULT_CONFIG.guardrails[f].cap);
          expect(r.reward).toBeGreaterThanOrEqual(0);
          expect(r.rawReward).toBeLessThanOrEqual(1);
          expect(r.capped).toBe(r.reward < r.rawReward);
        },
      ),
    );
  });
});

describe("partialHumanReward", () => {
  it("is null until all five sub-scores are set, then equals humanReward", () => {
    expect(partialHumanReward({}, [], DEFAULT_CONFIG)).toBeNull();
    expect(
      partialHumanReward(
        { outcome: 1, policy: 1, evidence: 1, efficiency: 1, communication: null },
        [],
        DEFAULT_CONFIG,
      ),
    ).toBeNull();
    expect(
      partialHumanReward(
        { outcome: 1, policy: 1, evidence: 1, efficiency: 1, communication: Number.NaN },
        [],
        DEFAULT_CONFIG,
      ),
    ).toBeNull();
    const full = Object.fromEntries(DIMENSIONS.map((d) => [d, 0.5]));
    expect(partialHumanReward(full, ["empty_promise"], DEFAULT_CONFIG)).toEqual(
      humanReward(all(0.5), ["empty_promise"], DEFAULT_CONFIG),
    );
  });
});
