// One test per rule of the five sub-scores, on hand-built fixtures (the refund case of formats.md by default).
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, parseVerifierConfig, type VerifierConfig } from "@/lib/verifier/config.ts";
import {
  anyOf,
  honestClaims,
  makeCase,
  makeRollout,
  reads,
  REFUND_ARGS,
  tool,
  write,
} from "@/lib/testing/verifier-fixtures.ts";
import type { Case, Reason, Rollout, VerifierScoreRecord } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

type Scored = Extract<VerifierScoreRecord, { status: "scored" }>;
function score(r: Rollout, c: Case = makeCase(), config: VerifierConfig = DEFAULT_CONFIG): Scored {
  const record = scoreRollout(r, c, config);
  if (record.status !== "scored") throw new Error(`expected a scored record, got ${record.status}`);
  return record;
}
const codes = (rs: Reason[], dimension: string) => rs.filter((r) => r.dimension === dimension).map((r) => r.code);
const handoffStep = (status: "success" | "failed" = "success") =>
  tool("handoff.transfer_to_human", { reason: "x" }, status);
const TWO_WRITES = {
  required_writes: [
    { tool: "finance.issue_refund", args: { order_id: "$order.id", amount: "$order.paid_amount" } },
    { tool: "logistics.create_return", args: { order_id: "$order.id" } },
  ],
};

describe("outcome", () => {
  it("is 1 when every required write is in the sandbox", () => {
    expect(score(makeRollout()).subscores.outcome).toBe(1);
  });

  it("is the matched fraction without a hand-off", () => {
    const r = score(makeRollout(), makeCase(TWO_WRITES));
    expect(r.subscores.outcome).toBe(0.5);
    expect(r.reasons).toContainEqual(
      expect.objectContaining({
        dimension: "outcome",
        code: "required_write_missing",
        tool: "logistics.create_return",
      }),
    );
  });

  it("is 1 with no required writes and no hand-off", () => {
    expect(score(makeRollout({ writes: [] }), makeCase({ required_writes: [] })).subscores.outcome).toBe(1);
  });

  it("is 0 when a hand-off is required and none happened", () => {
    const r = score(makeRollout(), makeCase({ handoff: "required" }));
    expect(r.subscores.outcome).toBe(0);
    expect(codes(r.reasons, "outcome")).toEqual(["handoff_required_missing"]);
  });

  it("is f after a required hand-off, 1 when nothing else is required", () => {
    const steps = [...reads(), handoffStep()];
    expect(score(makeRollout({ steps, writes: [] }), makeCase({ handoff: "required" })).subscores.outcome).toBe(0);
    expect(
      score(makeRollout({ steps, writes: [] }), makeCase({ handoff: "required", required_writes: [] })).subscores
        .outcome,
    ).toBe(1);
  });

  it("is 1 after an allowed hand-off only when the ticket was also resolved", () => {
    const both = [...reads(), tool("finance.issue_refund", { ...REFUND_ARGS }), handoffStep()];
    expect(score(makeRollout({ steps: both }), makeCase({ handoff: "allowed" })).subscores.outcome).toBe(1);
    const only = score(
      makeRollout({ steps: [...reads(), handoffStep()], writes: [] }),
      makeCase({ handoff: "allowed" }),
    );
    expect(only.subscores.outcome).toBe(0.45);
    expect(codes(only.reasons, "outcome")).toEqual(["handoff_instead_of_resolution", "required_write_missing"]);
    const noneRequired = makeCase({ handoff: "allowed", required_writes: [] });
    expect(score(makeRollout({ steps: [...reads(), handoffStep()], writes: [] }), noneRequired).subscores.outcome).toBe(
      0.45,
    );
  });

  it("takes the hand-off outcome from the config", () => {
    const cfg = parseVerifierConfig({ handoff_outcome: 0.6 });
    if (!cfg.ok) throw new Error("config");
    const r = score(
      makeRollout({ steps: [...reads(), handoffStep()], writes: [] }),
      makeCase({ handoff: "allowed" }),
      cfg.config,
    );
    expect(r.subscores.outcome).toBe(0.6);
  });

  it("is f after a hand-off that is not allowed, 0 when nothing was required", () => {
    const steps = [...reads(), tool("finance.issue_refund", { ...REFUND_ARGS }), handoffStep()];
    expect(score(makeRollout({ steps }), makeCase()).subscores.outcome).toBe(1);
    const r = score(makeRollout({ steps: [...reads(), handoffStep()], writes: [] }), makeCase({ required_writes: [] }));
    expect(r.subscores.outcome).toBe(0);
    expect(codes(r.reasons, "outcome")).toEqual(["handoff_instead_of_resolution"]);
  });

  it("ignores a failed hand-off step and a hand-off tool missing from the registry", () => {
    const failed = score(
      makeRollout({ steps: [...reads(), handoffStep("failed")], writes: [] }),
      makeCase({ handoff: "allowed" }),
    );
    expect(failed.handoff).toBe(false);
    expect(failed.subscores.outcome).toBe(0);
    const registry = makeRollout().tool_registry.filter((t) => t.kind !== "handoff");
    const unknown = score(
      makeRollout({ steps: [...reads(), handoffStep()], writes: [], registry }),
      makeCase({ handoff: "allowed" }),
    );
    expect(unknown.handoff).toBe(false);
  });

  it("matches greedily in spec order, even when another pairing would match more", () => {
    const c = makeCase({
      required_writes: [
        { tool: "finance.issue_refund", args: { order_id: "$order.id" } },
        { tool: "finance.issue_refund", args: { order_id: "$order.id", amount: "$order.paid_amount" } },
      ],
      allowed_writes: [],
    });
    const writes = [
      write("finance.issue_refund", { ...REFUND_ARGS }, 3),
      write("finance.issue_refund", { order_id: "O-1", amount: 10 }, 4),
    ];
    const steps = [
      ...reads(),
      tool("finance.issue_refund", { ...REFUND_ARGS }),
      tool("finance.issue_refund", { order_id: "O-1", amount: 10 }),
    ];
    const r = score(makeRollout({ steps, writes }), c);
    expect(r.subscores.outcome).toBe(0.5);
    expect(r.reasons).toContainEqual(
      expect.objectContaining({
        code: "required_write_args_mismatch",
        field: "amount",
        pointer: "$order.paid_amount",
        expected: 59.99,
        actual: 10,
      }),
    );
  });

  it("reports a missing argument of a near-miss write as actual null", () => {
    const writes = [write("finance.issue_refund", { order_id: "O-1", amount: 59.99 }, 3)];
    const r = score(makeRollout({ writes }));
    expect(r.reasons).toContainEqual(
      expect.objectContaining({
        code: "required_write_args_mismatch",
        field: "currency",
        expected: "EUR",
        actual: null,
      }),
    );
  });
});

describe("policy", () => {
  it("is 1 with the query made and no violation", () => {
    expect(score(makeRollout()).subscores.policy).toBe(1);
  });

  it("loses half without a successful policy query", () => {
    const steps = [
      tool("order.get", { order_id: "O-1" }),
      tool("attachment.get"),
      tool("policy.search", { topic: "damaged_item" }, "failed"),
      tool("finance.issue_refund", { ...REFUND_ARGS }),
    ];
    const r = score(makeRollout({ steps }));
    expect(r.subscores.policy).toBe(0.5);
    expect(r.reasons).toContainEqual(
      expect.objectContaining({ dimension: "policy", code: "policy_query_missing", tool: "policy.search" }),
    );
  });

  it("names the arguments of a policy query made about the wrong topic", () => {
    const steps = [
      tool("order.get"),
      tool("attachment.get"),
      tool("policy.search", { topic: "late_delivery" }),
      tool("finance.issue_refund", { ...REFUND_ARGS }),
    ];
    const r = score(makeRollout({ steps }));
    expect(r.subscores.policy).toBe(0.5);
    expect(r.reasons).toContainEqual(
      expect.objectContaining({
        code: "policy_query_missing",
        expected: { topic: "damaged_item" },
        actual: { topic: "late_delivery" },
      }),
    );
  });

  it("loses the rules half on a violation, with the policy value and its pointer", () => {
    const writes = [
      write("finance.issue_refund", { ...REFUND_ARGS }, 3),
      write("logistics.create_return", { order_id: "O-1", label_paid_by: "customer" }, 4),
    ];
    const steps = [
      ...reads(),
      tool("finance.issue_refund", { ...REFUND_ARGS }),
      tool("logistics.create_return", writes[1].args),
    ];
    const r = score(makeRollout({ steps, writes }));
    expect(r.subscores.policy).toBe(0.5);
    expect(r.reasons).toContainEqual(
      expect.objectContaining({
        dimension: "policy",
        code: "policy_rule_violated",
        field: "label_paid_by",
        pointer: "$policy.damaged_item.return_shipping_paid_by",
        expected: "merchant",
        actual: "customer",
      }),
    );
  });

  it("counts a write missing the rule's argument as a violation", () => {
    const writes = [
      write("finance.issue_refund", { ...REFUND_ARGS }, 3),
      write("logistics.create_return", { order_id: "O-1" }, 3),
    ];
    const r = score(makeRollout({ writes }));
    expect(r.subscores.policy).toBe(0.5);
    expect(r.reasons).toContainEqual(expect.objectContaining({ code: "policy_rule_violated", actual: null }));
  });

  it("is rules_ok alone without a query, and 1 without a policy section", () => {
    const writes = [
      write("finance.issue_refund", { ...REFUND_ARGS }, 3),
      write("logistics.create_return", { label_paid_by: "customer" }, 3),
    ];
    const rulesOnly = { policy: { rules: makeCase().verifier_spec.policy?.rules } };
    expect(score(makeRollout({ writes }), makeCase(rulesOnly)).subscores.policy).toBe(0);
    expect(score(makeRollout({ writes: [] }), makeCase({ ...rulesOnly, required_writes: [] })).subscores.policy).toBe(
      1,
    );
    expect(score(makeRollout({ steps: [] }), makeCase({ policy: undefined })).subscores.policy).toBe(1);
  });
});

describe("evidence", () => {
  it("is 1 when every required read precedes the first write", () => {
    expect(score(makeRollout()).subscores.evidence).toBe(1);
  });

  it("tells a late read from a missing one", () => {
    const steps = [
      tool("order.get"),
      tool("finance.issue_refund", { ...REFUND_ARGS }),
      tool("policy.search", { topic: "damaged_item" }),
    ];
    const r = score(makeRollout({ steps, writes: [write("finance.issue_refund", { ...REFUND_ARGS }, 1)] }));
    expect(r.subscores.evidence).toBeCloseTo(1 / 3, 6);
    expect(r.reasons).toContainEqual(
      expect.objectContaining({ code: "required_read_missing", tool: "attachment.get", actual: null }),
    );
    expect(r.reasons).toContainEqual(
      expect.objectContaining({
        code: "required_read_after_write",
        tool: "policy.search",
        expected: { before_step: 1, write: "finance.issue_refund" },
        actual: { step: 2 },
      }),
    );
  });

  it("accepts reads anywhere when nothing was written", () => {
    const steps = [handoffStep(), ...reads()];
    expect(score(makeRollout({ steps, writes: [] }), makeCase({ handoff: "allowed" })).subscores.evidence).toBe(1);
  });

  it("does not count a failed read", () => {
    const steps = [
      tool("order.get"),
      tool("attachment.get", {}, "failed"),
      tool("policy.search", { topic: "damaged_item" }),
      tool("finance.issue_refund", { ...REFUND_ARGS }),
    ];
    expect(score(makeRollout({ steps })).subscores.evidence).toBeCloseTo(2 / 3, 6);
  });

  it("satisfies any_of with any of the tools", () => {
    const c = makeCase({ required_reads: [anyOf("customer.get", "order.get")], policy: undefined });
    const steps = [tool("customer.get"), tool("finance.issue_refund", { ...REFUND_ARGS })];
    expect(
      score(makeRollout({ steps, writes: [write("finance.issue_refund", { ...REFUND_ARGS }, 1)] }), c).subscores
        .evidence,
    ).toBe(1);
    const none = score(
      makeRollout({
        steps: [tool("finance.issue_refund", { ...REFUND_ARGS })],
        writes: [write("finance.issue_refund", { ...REFUND_ARGS }, 0)],
      }),
      c,
    );
    expect(none.reasons).toContainEqual(
      expect.objectContaining({ code: "required_read_missing", tool: "customer.get | order.get" }),
    );
  });

  it("checks `after` reads against the write matched to that required write only", () => {
    const c = makeCase({
      required_reads: [],
      policy: undefined,
      required_writes: [
        {
          tool: "finance.issue_refund",
          args: { order_id: "$order.id", amount: "$order.paid_amount" },
          after: ["attachment.get"],
        },
      ],
    });
    const steps = [tool("finance.issue_refund", { ...REFUND_ARGS }), tool("attachment.get")];
    const late = score(makeRollout({ steps, writes: [write("finance.issue_refund", { ...REFUND_ARGS }, 0)] }), c);
    expect(late.subscores.evidence).toBe(0);
    expect(late.reasons).toContainEqual(
      expect.objectContaining({ code: "required_read_after_write", field: "required_writes.0.after.0" }),
    );
    // An unmatched required write creates no `after` obligation (outcome already counts it).
    const unmatched = score(
      makeRollout({ steps, writes: [write("finance.issue_refund", { order_id: "O-1", amount: 1 }, 0)] }),
      c,
    );
    expect(unmatched.subscores.evidence).toBe(1);
    expect(unmatched.subscores.outcome).toBe(0);
  });

  it("places a write without `step` at the first successful step with equal args", () => {
    const steps = [
      tool("order.get"),
      tool("finance.issue_refund", { ...REFUND_ARGS }),
      tool("attachment.get"),
      tool("policy.search", { topic: "damaged_item" }),
    ];
    const r = score(makeRollout({ steps, writes: [write("finance.issue_refund", { ...REFUND_ARGS })] }));
    expect(r.subscores.evidence).toBeCloseTo(1 / 3, 6);
  });

  it("places a write with no matching step after the last step", () => {
    const steps = [tool("finance.issue_refund", { order_id: "O-1" }), ...reads()];
    const r = score(makeRollout({ steps, writes: [write("finance.issue_refund", { ...REFUND_ARGS })] }));
    expect(r.subscores.evidence).toBe(1);
  });

  it("uses the earliest write as the first write", () => {
    const writes = [
      write("finance.issue_refund", { ...REFUND_ARGS }, 3),
      write("logistics.create_return", { order_id: "O-1", label_paid_by: "merchant" }, 1),
    ];
    const steps = [
      tool("order.get"),
      tool("logistics.create_return", writes[1].args),
      tool("attachment.get"),
      tool("policy.search", { topic: "damaged_item" }),
    ];
    expect(score(makeRollout({ steps, writes })).subscores.evidence).toBeCloseTo(1 / 3, 6);
  });
});

describe("efficiency", () => {
  it("is 1 within the budget and counts failed tool steps but not LLM turns", () => {
    const steps = [
      { type: "llm" as const, output: "hi" },
      ...reads(),
      tool("finance.issue_refund", { ...REFUND_ARGS }),
      tool("order.get", {}, "failed"),
    ];
    const r = score(
      makeRollout({ steps, writes: [write("finance.issue_refund", { ...REFUND_ARGS }, 4)] }),
      makeCase({ step_budget: 5 }),
    );
    expect(r.tool_steps).toBe(5);
    expect(r.subscores.efficiency).toBe(1);
  });

  it("falls linearly past the budget and stops at 0", () => {
    const extra = (n: number) => Array.from({ length: n }, () => tool("order.get"));
    const over = score(
      makeRollout({ steps: [...reads(), tool("finance.issue_refund", { ...REFUND_ARGS }), ...extra(6)] }),
    );
    expect(over.subscores.efficiency).toBe(0.75); // 10 steps, budget 8
    expect(over.reasons).toContainEqual(expect.objectContaining({ code: "over_step_budget", expected: 8, actual: 10 }));
    const far = score(
      makeRollout({ steps: [...reads(), tool("finance.issue_refund", { ...REFUND_ARGS }), ...extra(20)] }),
    );
    expect(far.subscores.efficiency).toBe(0);
  });

  it("defaults the budget to 2 * (|required_reads| + |R|) + 2", () => {
    const c = makeCase({ step_budget: undefined }); // 2 * (3 + 1) + 2 = 10
    const steps = (n: number) => [
      ...reads(),
      tool("finance.issue_refund", { ...REFUND_ARGS }),
      ...Array.from({ length: n }, () => tool("order.get")),
    ];
    expect(score(makeRollout({ steps: steps(6) }), c).subscores.efficiency).toBe(1);
    expect(score(makeRollout({ steps: steps(7) }), c).subscores.efficiency).toBe(0.9);
  });
});

describe("communication", () => {
  it("is 1 when every must_mention item is mentioned with the right value", () => {
    expect(score(makeRollout()).subscores.communication).toBe(1);
  });

  it("accepts a mentioned value within 1%", () => {
    const claims = honestClaims({ mentioned: [{ key: "refund_amount", value: "60" }, { key: "refund_eta" }] });
    expect(score(makeRollout({ claims })).subscores.communication).toBe(1);
  });

  it("explains a missing mention and a wrong value", () => {
    const missing = score(
      makeRollout({ claims: honestClaims({ mentioned: [{ key: "refund_amount", value: 59.99 }] }) }),
    );
    expect(missing.subscores.communication).toBe(0.5);
    expect(missing.reasons).toContainEqual(expect.objectContaining({ code: "mention_missing", field: "refund_eta" }));
    const wrong = score(
      makeRollout({
        claims: honestClaims({ mentioned: [{ key: "refund_amount", value: 50 }, { key: "refund_eta" }] }),
      }),
    );
    expect(wrong.subscores.communication).toBe(0.5);
    expect(wrong.reasons).toContainEqual(
      expect.objectContaining({
        code: "mention_value_mismatch",
        field: "refund_amount",
        pointer: "$order.paid_amount",
        expected: 59.99,
        actual: 50,
      }),
    );
  });

  it("does not let a mention without a value satisfy an item with one", () => {
    const r = score(
      makeRollout({ claims: honestClaims({ mentioned: [{ key: "refund_amount" }, { key: "refund_eta" }] }) }),
    );
    expect(r.subscores.communication).toBe(0.5);
    expect(r.reasons).toContainEqual(expect.objectContaining({ code: "mention_value_mismatch", actual: null }));
  });

  it("says that a mention has no value instead of showing it as null, and what was expected", () => {
    const c = makeCase({ must_mention: [{ key: "refund_amount", value: null }] });
    const valueless = score(makeRollout({ claims: honestClaims({ mentioned: [{ key: "refund_amount" }] }) }), c);
    expect(valueless.reasons.find((x) => x.code === "mention_value_mismatch")?.message).toBe(
      "the reply mentions refund_amount without a value, expected null",
    );
    const twice = score(
      makeRollout({
        claims: honestClaims({ mentioned: [{ key: "refund_amount", value: 50 }, { key: "refund_amount" }] }),
      }),
    );
    expect(twice.reasons.find((x) => x.code === "mention_value_mismatch")?.message).toBe(
      "the reply mentions refund_amount 2 times (as 50, without a value), expected 59.99 ($order.paid_amount)",
    );
    const wrong = score(makeRollout({ claims: honestClaims({ mentioned: [{ key: "refund_amount", value: 50 }] }) }));
    expect(wrong.reasons.find((x) => x.code === "mention_value_mismatch")?.message).toBe(
      "the reply mentions refund_amount as 50, expected 59.99 ($order.paid_amount)",
    );
  });

  it("takes 0.5 for a forbidden expression of the case, and ignores codes the case does not forbid", () => {
    const hit = score(makeRollout({ claims: honestClaims({ forbidden_hits: ["blame_customer", "blame_customer"] }) }));
    expect(hit.subscores.communication).toBe(0.5);
    expect(hit.reasons.filter((r) => r.code === "forbidden_expression")).toHaveLength(1);
    expect(
      score(makeRollout({ claims: honestClaims({ forbidden_hits: ["share_internal_policy"] }) })).subscores
        .communication,
    ).toBe(1);
  });

  it("never goes below 0", () => {
    const claims = { claimed_writes: ["finance.issue_refund"], mentioned: [], forbidden_hits: ["blame_customer"] };
    expect(score(makeRollout({ claims })).subscores.communication).toBe(0);
    expect(score(makeRollout({ claims }), makeCase({ must_mention: [] })).subscores.communication).toBe(0.5);
  });
});

describe("raw reward", () => {
  it("is the weighted sum of the sub-scores under the config's weights", () => {
    const cfg = parseVerifierConfig({
      weights: { outcome: 0.2, policy: 0.2, evidence: 0.2, efficiency: 0.2, communication: 0.2 },
    });
    if (!cfg.ok) throw new Error("config");
    const r = score(makeRollout({ claims: honestClaims({ mentioned: [] }) }), makeCase(), cfg.config);
    expect(r.raw_reward).toBe(0.8);
    expect(score(makeRollout({ claims: honestClaims({ mentioned: [] }) })).raw_reward).toBe(0.95);
  });
});
