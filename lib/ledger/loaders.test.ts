import { describe, expect, it } from "vitest";
import { mentionProblemsOf, mustMentionsOf } from "@/lib/ledger/loaders.ts";

describe("the rollout page's shaping of a case and its reasons", () => {
  it("resolves each must_mention pointer against the snapshot, and says when one does not resolve", () => {
    const spec = {
      must_mention: [
        { key: "refund", value: "$order.refund" },
        { key: "literal", value: "$$5" },
        { key: "missing", value: "$order.nope" },
        { key: "any" },
      ],
    };
    expect(mustMentionsOf(spec, { order: { refund: 42 } })).toEqual([
      { key: "refund", hasExpected: true, expected: 42 },
      { key: "literal", hasExpected: true, expected: "$$5" },
      { key: "missing", hasExpected: true, expected: "(does not resolve)" },
      { key: "any", hasExpected: false, expected: undefined },
    ]);
    expect(mustMentionsOf(null, {})).toEqual([]);
    expect(mustMentionsOf({}, {})).toEqual([]);
  });

  it("keys the mention reasons by their must_mention key", () => {
    expect(
      mentionProblemsOf([
        { code: "mention_missing", field: "refund" },
        { code: "mention_value_mismatch", field: "amount" },
        { code: "mention_missing" },
        { code: "policy_rule_violated", field: "refund_limit" },
      ]),
    ).toEqual({ refund: "mention_missing", amount: "mention_value_mismatch" });
  });
});
