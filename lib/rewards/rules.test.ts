// Rule components and the combination of components, on hand-made rollouts: format, exact match with its
// normalisation and spec pointers, math, the verifier under the default config, and failures that are never 0.
import { describe, expect, it } from "vitest";
import { compileVersion } from "@/lib/rewards/evaluate.ts";
import { normalizeText } from "@/lib/rewards/rules.ts";
import { versionDocument } from "@/lib/rewards/schema.ts";
import { RULE_TEMPLATES } from "@/lib/rewards/templates.ts";
import type { RewardInput } from "@/lib/rewards/input.ts";
import { makeCase, makeRollout } from "@/lib/testing/verifier-fixtures.ts";

const doc = versionDocument;

function input(reply: string, reference?: unknown): RewardInput {
  const caseDoc = makeCase();
  if (reference !== undefined) (caseDoc.ticket as Record<string, unknown>).reference_output = reference;
  return { rollout: makeRollout({ reply }), caseDoc };
}

const run = (d: unknown, i: RewardInput) => compileVersion(doc(d)).evaluate(i);
const template = (id: string) => RULE_TEMPLATES.find((t) => t.id === id)!.doc;

describe("normalizeText", () => {
  const all = { trim: true, case: true, whitespace: true, thousands: true, currency: true };
  it("folds case, collapses white space, drops thousands separators and currency signs", () => {
    expect(normalizeText("  EUR 1,234.50\n\tPaid ", all)).toBe("1234.50 paid");
    expect(normalizeText("¥12,000", { ...all, case: false })).toBe("12000");
    expect(
      normalizeText(" A  b ", { trim: true, case: false, whitespace: false, thousands: false, currency: false }),
    ).toBe("A  b");
  });
  it("leaves a comma that is not a thousands separator", () => {
    expect(normalizeText("1,23 and 1,2345", all)).toBe("1,23 and 1,2345");
  });
});

describe("format", () => {
  it("is 1 when the pattern matches the reply, else 0 (the Chinese chain-of-thought template)", async () => {
    const ok = await run(template("cot-format-zh"), input("分析过程：订单已签收。\n最终答案：退款"));
    expect([ok.status, ok.reward]).toEqual(["ok", 1]);
    const bad = await run(template("cot-format-zh"), input("最终答案：退款"));
    expect([bad.status, bad.reward]).toEqual(["ok", 0]);
  });
  it("the English twin", async () => {
    expect((await run(template("cot-format-en"), input("Analysis: late.\nFinal answer: refund"))).reward).toBe(1);
  });
});

describe("exact_match", () => {
  it("extracts the status code and compares it with reference_output (a number)", async () => {
    expect((await run(template("status-code"), input('done {"status": 200}', 200))).reward).toBe(1);
    expect((await run(template("status-code"), input('done {"status": 404}', 200))).reward).toBe(0);
    expect((await run(template("status-code"), input("no json here", 200))).reward).toBe(0);
  });
  it("the intent label, ignoring case", async () => {
    const r = await run(template("intent-label"), input('{"intent": "Refund_Request"}', "refund_request"));
    expect(r.reward).toBe(1);
    expect(r.components[0].detail).toMatchObject({ extracted: "Refund_Request" });
  });
  it("compares with a spec pointer into the case's snapshot", async () => {
    const d = {
      components: [
        {
          kind: "exact_match",
          pattern: "refunded (\\S+ EUR)",
          reference: "$order.paid_amount",
          normalize: { currency: true },
        },
      ],
    };
    expect((await run(d, input("I have refunded 59.99 EUR to your card."))).reward).toBe(1);
    expect((await run(d, input("I have refunded 5.99 EUR to your card."))).reward).toBe(0);
  });
  it("is an error, not 0, when the case has no reference or the pointer does not resolve", async () => {
    const none = await run({ components: [{ kind: "exact_match" }] }, input("x"));
    expect([none.status, none.reward]).toEqual(["error", null]);
    expect(none.error).toMatch(/no reference_output/);
    const bad = await run({ components: [{ kind: "exact_match", reference: "$order.nope" }] }, input("x"));
    expect(bad.error).toMatch(/\$order\.nope does not resolve/);
    const noCase = await compileVersion(doc({ components: [{ kind: "exact_match" }] })).evaluate({
      rollout: makeRollout(),
      caseDoc: null,
    });
    expect([noCase.status, noCase.reward]).toEqual(["error", null]);
  });
});

describe("math", () => {
  it("0.2 × format + 0.8 × correct: the template's weights, each component kept", async () => {
    const r = await run(template("math-answer"), input("so ANSWER: 0.50", "1/2"));
    expect(r.reward).toBeCloseTo(1, 12);
    expect(r.components.map((c) => [c.name, c.value])).toEqual([
      ["format", 1],
      ["correct", 1],
    ]);
    const wrong = await run(template("math-answer"), input("ANSWER: 3", "2"));
    expect(wrong.reward).toBeCloseTo(0.2, 12);
    const none = await run(template("math-answer"), input("I think it is 2", "2"));
    expect(none.reward).toBe(0);
  });
  it("a reference that is not a number is the component's error", async () => {
    const r = await run(template("math-answer"), input("ANSWER: 3", "three"));
    expect([r.status, r.reward]).toEqual(["error", null]);
    expect(r.error).toMatch(/correct: the reference "three" is not a number/);
  });
  it("weights need not sum to 1 and may be any finite number", async () => {
    const d = {
      components: [
        { kind: "format", pattern: "x", weight: 2 },
        { kind: "format", pattern: "y", weight: 3 },
      ],
    };
    expect((await run(d, input("xy"))).reward).toBe(5);
  });
});

describe("verifier", () => {
  it("scores the rollout under the default config, as the ledger would", async () => {
    const r = await run({ components: [{ kind: "verifier" }] }, input("I have refunded 59.99 EUR to your card."));
    expect(r.status).toBe("ok");
    expect(r.reward).toBeGreaterThan(0.9);
  });
  it("a config hash that is not stored makes the component unavailable", async () => {
    const r = await run({ components: [{ kind: "verifier", config_hash: "a".repeat(64) }] }, input("x"));
    expect([r.status, r.reward]).toEqual(["unavailable", null]);
  });
});

describe("judge and code without a runtime", () => {
  it("are unavailable, never 0", async () => {
    const r = await run(
      {
        components: [
          { kind: "format", pattern: "x" },
          { kind: "judge", rubric: "be nice" },
        ],
      },
      input("x"),
    );
    expect([r.status, r.reward]).toEqual(["unavailable", null]);
    expect(r.components[0]).toMatchObject({ status: "ok", value: 1 });
  });
});

describe("math on plain decimals (the fast path) agrees with the exact parser", () => {
  it.each([
    ["100", "101", 0.01, 1],
    ["100", "101.5", 0.01, 0],
    ["0", "0.0001", 0.01, 0],
    ["0.1", "0.10", 0, 1],
    ["-2", "2", 0.5, 0],
    ["59.99", "59.99", 0, 1],
  ])("reference %s, answer %s, tolerance %d: %d", async (ref, ans, tolerance, value) => {
    const d = { components: [{ kind: "math", pattern: "A=(\\S+)", tolerance }] };
    expect((await run(d, input(`A=${ans}`, ref))).reward).toBe(value);
    // the same through the parser: a fraction reference takes the exact path
    const viaParser = { components: [{ kind: "math", pattern: "A=(\\S+)", tolerance }] };
    expect((await run(viaParser, input(`A=${ans}`, `${ref}/1`))).reward).toBe(value);
  });
});
