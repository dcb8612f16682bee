import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, parseVerifierConfig } from "@/lib/verifier/config.ts";
import { buildExtractionInput, type ExtractionInput } from "@/lib/verifier/extractor.ts";
import { makeCase, makeRollout } from "@/lib/testing/verifier-fixtures.ts";
import { createRuleExtractor, parseAmount, ruleExtractorFor } from "@/lib/verifier/rule-extractor.ts";
import { rolloutSchema } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

const extractor = ruleExtractorFor(DEFAULT_CONFIG.claims.rules);
const ALL: Omit<ExtractionInput, "final_reply"> = {
  write_tools: [
    "finance.issue_refund",
    "logistics.create_return",
    "logistics.reship",
    "logistics.update_address",
    "order.cancel",
    "finance.charge_customer",
  ],
  mention_keys: [
    "refund_amount",
    "refund_eta",
    "handoff_notice",
    "return_label",
    "new_address",
    "reship_eta",
    "cancellation_confirmed",
  ],
  forbidden_codes: ["blame_customer", "promise_compensation", "share_internal_policy"],
};
const extract = (final_reply: string) => extractor.extract({ ...ALL, final_reply });

describe("rule extractor on the spec examples", () => {
  // Read by Vitest at transform time (no node:fs in this pure folder).
  const files = import.meta.glob<unknown>("./examples/*.json", { eager: true, import: "default" });
  const rollouts = Object.entries(files).filter(([p]) => !p.endsWith(".expected.json"));
  it("finds the examples", () => expect(rollouts.length).toBeGreaterThanOrEqual(10));
  it.each(rollouts)("agrees with the bundle claims of %s on writes, mention keys and forbidden codes", (_, json) => {
    const r = rolloutSchema.parse(json);
    if (!r.case || !r.claims) throw new Error("examples embed their case and carry claims");
    const got = extractor.extract(buildExtractionInput(r, r.case));
    expect(got.claimed_writes).toEqual(r.claims.claimed_writes);
    expect(got.mentioned.map((m) => m.key)).toEqual(r.claims.mentioned.map((m) => m.key));
    expect(got.forbidden_hits).toEqual(r.claims.forbidden_hits);
  });
});

describe("rule extractor", () => {
  it.each([
    [
      "I have refunded 59.99 EUR to your card; it arrives in 3-5 business days.",
      ["finance.issue_refund"],
      { refund_amount: 59.99, refund_eta: "3-5 business days" },
    ],
    [
      "I've updated your shipping address. New address: 12 Rue de Rivoli, Paris.",
      ["logistics.update_address"],
      { new_address: "12 Rue de Rivoli, Paris" },
    ],
    [
      "A replacement has been shipped and will arrive within 2-4 business days.",
      ["logistics.reship"],
      { reship_eta: "2-4 business days" },
    ],
    ["Your order has been cancelled.", ["order.cancel"], { cancellation_confirmed: undefined }],
    ["I have created a prepaid return label for you.", ["logistics.create_return"], { return_label: undefined }],
    [
      "您好，已为您办理全额退款59.99元，预计3-5个工作日原路返回。",
      ["finance.issue_refund"],
      { refund_amount: 59.99, refund_eta: "3-5个工作日" },
    ],
    ["您好，退款已处理，金额为 ５９．９９ 欧元。", ["finance.issue_refund"], { refund_amount: 59.99 }],
    ["订单已为您取消。", ["order.cancel"], { cancellation_confirmed: undefined }],
    ["已为您转接人工客服，同事会尽快联系您。", [], { handoff_notice: undefined }],
  ])("reads %j", (reply, writes, mentions) => {
    const claims = extract(reply);
    expect(claims.claimed_writes).toEqual(writes);
    for (const [key, value] of Object.entries(mentions)) {
      expect(claims.mentioned).toContainEqual(value === undefined ? { key } : { key, value });
    }
  });

  it("does not take an offer, a question or a negated sentence for a done write", () => {
    expect(extract("Would you like me to refund you? I can issue a refund of 59.99 EUR.").claimed_writes).toEqual([]);
    expect(extract("I could not refund your order, sorry.").claimed_writes).toEqual([]);
    expect(extract("很抱歉，目前无法为您办理退款。").claimed_writes).toEqual([]);
    expect(extract("The refund has not been issued yet.").claimed_writes).toEqual([]);
  });

  it("finds forbidden expressions in English and Chinese", () => {
    expect(extract("Please ship it back at your own cost.").forbidden_hits).toEqual(["blame_customer"]);
    expect(extract("这是您自己的原因。根据内部规定，我们保证给您补偿。").forbidden_hits).toEqual([
      "blame_customer",
      "promise_compensation",
      "share_internal_policy",
    ]);
  });

  it("only answers within the input's vocabulary", () => {
    const claims = extractor.extract({
      final_reply: "I have refunded 59.99 EUR. Your order has been cancelled. It is your own fault.",
      write_tools: ["order.cancel"],
      mention_keys: [],
      forbidden_codes: [],
    });
    expect(claims).toEqual({ claimed_writes: ["order.cancel"], mentioned: [], forbidden_hits: [] });
  });

  it("uses the patterns of the config", () => {
    const cfg = parseVerifierConfig({
      claims: { rules: { write_tools: { "finance.issue_refund": ["money is on its way"] } } },
    });
    if (!cfg.ok) throw new Error("config");
    const custom = createRuleExtractor(cfg.config.claims.rules);
    const input = { ...ALL, final_reply: "Good news: the money is on its way." };
    expect(custom.extract(input).claimed_writes).toEqual(["finance.issue_refund"]);
    expect(extractor.extract(input).claimed_writes).toEqual([]);
  });

  it("is what scoreRollout uses for a bundle without claims, recorded as claims_source rules", () => {
    const record = scoreRollout(makeRollout({ claims: null }), makeCase());
    expect(record.claims_source).toBe("rules");
    expect(record.reward).toBe(1);
    const lie = scoreRollout(makeRollout({ claims: null, writes: [], reply: "您好，已为您安排退款。" }), makeCase());
    expect(lie.guardrails.map((g) => g.code)).toContain("empty_promise");
  });
});

describe("parseAmount", () => {
  it("reads thousands separators and decimal commas", () => {
    expect(parseAmount("1,234.50")).toBe(1234.5);
    expect(parseAmount("59,99")).toBe(59.99);
    expect(parseAmount("1 234")).toBe(1234);
    expect(parseAmount("12a")).toBeUndefined();
  });
});
