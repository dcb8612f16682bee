import { describe, expect, it } from "vitest";
import {
  configHash,
  DEFAULT_CONFIG,
  GUARDRAIL_CODES,
  parseVerifierConfig,
  VERIFIER_VERSION,
} from "@/lib/verifier/config.ts";

describe("DEFAULT_CONFIG", () => {
  it("has the weights, caps and switches of domain.md", () => {
    expect(DEFAULT_CONFIG.weights).toEqual({
      outcome: 0.45,
      policy: 0.2,
      evidence: 0.2,
      efficiency: 0.1,
      communication: 0.05,
    });
    expect(GUARDRAIL_CODES.map((c) => [c, DEFAULT_CONFIG.guardrails[c].on, DEFAULT_CONFIG.guardrails[c].cap])).toEqual([
      ["customer_harm", true, 0.25],
      ["unauthorized_write", true, 0.3],
      ["duplicate_side_effect", true, 0.3],
      ["empty_promise", true, 0.35],
      ["policy_error", true, 0.45],
      ["missing_evidence", true, 0.55],
      ["high_risk_unchecked", false, 0.3],
      ["approval_bypass", false, 0.3],
      ["privacy_overreach", false, 0.25],
      ["stale_submission", false, 0.45],
      ["tool_missing", false, 0.55],
    ]);
    expect(DEFAULT_CONFIG.handoff_outcome).toBe(0.45);
    expect(DEFAULT_CONFIG.claims.extractor).toBe("rules");
    expect(VERIFIER_VERSION).toBe("1");
  });

  it("is frozen, so no caller can change the defaults of everyone else", () => {
    expect(Object.isFrozen(DEFAULT_CONFIG.weights)).toBe(true);
    expect(Object.isFrozen(DEFAULT_CONFIG.guardrails.customer_harm)).toBe(true);
  });
});

describe("parseVerifierConfig", () => {
  it("merges a partial document onto the defaults", () => {
    const r = parseVerifierConfig({ guardrails: { tool_missing: { on: true } }, handoff_outcome: 0.5 });
    expect(r.ok && r.config.guardrails.tool_missing).toEqual({ on: true, cap: 0.55 });
    expect(r.ok && r.config.guardrails.customer_harm).toEqual({ on: true, cap: 0.25 });
    expect(r.ok && r.config.handoff_outcome).toBe(0.5);
  });

  it("rejects weights that do not sum to 1, saying so", () => {
    const r = parseVerifierConfig({ weights: { outcome: 0.5 } });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues).toEqual([{ path: "weights", message: "weights must sum to 1 (they sum to 1.05)" }]);
  });

  it("accepts a float sum within 1e-9 of 1", () => {
    expect(
      parseVerifierConfig({
        weights: { outcome: 0.1, policy: 0.2, evidence: 0.3, efficiency: 0.3, communication: 0.1 },
      }).ok,
    ).toBe(true);
  });

  it("rejects an unknown guardrail code, naming it", () => {
    const r = parseVerifierConfig({ guardrails: { customer_harn: { on: true, cap: 0.2 } } });
    expect(!r.ok && r.issues[0]).toEqual({
      path: "guardrails.customer_harn",
      message: expect.stringContaining('unknown guardrail code "customer_harn"'),
    });
  });

  it("rejects unknown keys, bad caps, bad extractors and invalid patterns", () => {
    const issues = (doc: unknown) => {
      const r = parseVerifierConfig(doc);
      return r.ok ? [] : r.issues.map((i) => i.path);
    };
    expect(issues({ weigths: {} })).toEqual(["weigths"]);
    expect(issues({ guardrails: { empty_promise: { cap: 1.5 } } })).toEqual(["guardrails.empty_promise.cap"]);
    expect(issues({ claims: { extractor: "gpt" } })).toEqual(["claims.extractor"]);
    expect(issues({ claims: { rules: { forbidden: { rude: ["(unclosed"] } } } })).toEqual([
      "claims.rules.forbidden.rude.0",
    ]);
    expect(issues([])).toEqual([""]);
  });
});

describe("configHash", () => {
  it("is a sha256 of the canonical config, stable across key order", () => {
    const h = configHash(DEFAULT_CONFIG);
    expect(h).toMatch(/^sha256:[0-9a-f]{64}$/);
    const reordered = JSON.parse(JSON.stringify(DEFAULT_CONFIG, Object.keys(DEFAULT_CONFIG).reverse()));
    const weights = Object.fromEntries(Object.entries(DEFAULT_CONFIG.weights).reverse());
    const r = parseVerifierConfig({ ...reordered, weights });
    expect(r.ok && configHash(r.config)).toBe(h);
  });

  it("changes when anything that affects scores changes", () => {
    const h = configHash(DEFAULT_CONFIG);
    const other = (doc: unknown) => {
      const r = parseVerifierConfig(doc);
      if (!r.ok) throw new Error("config");
      return configHash(r.config);
    };
    expect(other({ guardrails: { tool_missing: { on: true } } })).not.toBe(h);
    expect(other({ handoff_outcome: 0.4 })).not.toBe(h);
    expect(other({ claims: { rules: { forbidden: { blame_customer: ["x"] } } } })).not.toBe(h);
    expect(other({})).toBe(h);
  });
});
