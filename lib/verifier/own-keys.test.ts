// Keys that plain objects also have as inherited properties (`__proto__`, `constructor`, `toString`) are compared
// like any other key. The objects come from JSON.parse, which makes `__proto__` an own key, as a JSON reader must.
import { describe, expect, it } from "vitest";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { parseVerifierConfig } from "@/lib/verifier/config.ts";
import { eq } from "@/lib/verifier/equality.ts";
import { makeCase, makeRollout, reads, tool } from "@/lib/testing/verifier-fixtures.ts";
import { resolveSpecValues } from "@/lib/verifier/pointers.ts";
import { caseSchema, rolloutSchema, type Case, type Rollout, type VerifierScoreRecord } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

const parsed = <T>(value: unknown): T => JSON.parse(JSON.stringify(value).replaceAll('"PROTO"', '"__proto__"')) as T;
const cfg = parseVerifierConfig({ guardrails: Object.fromEntries(GUARDRAIL_CODES.map((c) => [c, { on: true }])) });
if (!cfg.ok) throw new Error("config");
const ALL_ON = cfg.config;

type Scored = Extract<VerifierScoreRecord, { status: "scored" }>;
function score(r: Rollout, c: Case): Scored {
  const record = scoreRollout(r, c, ALL_ON);
  if (record.status !== "scored") throw new Error(JSON.stringify(record.reasons));
  return record;
}
/** The refund flow with one write of `args`, required with `required` (JSON keys PROTO read as __proto__). */
function refundWith(args: Record<string, unknown>, spec: Record<string, unknown>) {
  const all = { order_id: "O-1", amount: 59.99, currency: "EUR", ...args };
  const rollout = parsed<Rollout>(
    makeRollout({
      steps: [...reads(), tool("finance.issue_refund", all)],
      writes: [{ tool: "finance.issue_refund", args: all, step: 3 }],
    }),
  );
  return { rollout, caseDoc: parsed<Case>(makeCase(spec)) };
}

describe("__proto__ and constructor keys in tool arguments", () => {
  it("resolves a spec object with a __proto__ key into an own key, not a prototype", () => {
    const { value } = resolveSpecValues(parsed<{ args: object }>({ args: { PROTO: { id: "$order.id" } } }), {
      order: { id: "O-1" },
    });
    expect(Object.getPrototypeOf(value.args)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value.args, "__proto__")?.value).toEqual({ id: "O-1" });
  });

  it("matches a required write whose args carry __proto__ like any key", () => {
    const required = (v: number) => ({
      required_writes: [{ tool: "finance.issue_refund", args: { order_id: "$order.id", PROTO: { v } } }],
    });
    const same = refundWith({ PROTO: { v: 1 } }, required(1));
    expect(score(same.rollout, same.caseDoc).subscores.outcome).toBe(1);
    const other = refundWith({ PROTO: { v: 2 } }, required(1));
    const r = score(other.rollout, other.caseDoc);
    expect(r.subscores.outcome).toBe(0);
    expect(r.reasons).toContainEqual(
      expect.objectContaining({ code: "required_write_args_mismatch", field: "__proto__", actual: { v: 2 } }),
    );
  });

  it("keeps a __proto__ argument through input validation, so the verifier sees what the sandbox recorded", () => {
    const required = {
      required_writes: [{ tool: "finance.issue_refund", args: { order_id: "$order.id", PROTO: { v: 1 } } }],
    };
    const other = refundWith({ PROTO: { v: 2 } }, required);
    const rollout = rolloutSchema.parse(other.rollout);
    const caseDoc = caseSchema.parse(other.caseDoc);
    expect(Object.getOwnPropertyDescriptor(rollout.sandbox.writes[0].args, "__proto__")?.value).toEqual({
      v: 2,
    });
    const r = score(rollout, caseDoc);
    expect(r.reasons).toContainEqual(
      expect.objectContaining({ code: "required_write_args_mismatch", field: "__proto__", actual: { v: 2 } }),
    );
  });

  it("reads a missing constructor or __proto__ argument as missing, not as Object's own", () => {
    const harm = (arg: string, op: string, value: unknown) => ({
      harm: [{ tool: "finance.issue_refund", arg, op, value }],
    });
    // Object.prototype would be eq to {} and trigger the rule on every refund.
    const noProto = refundWith({}, harm("__proto__", "eq", {}));
    expect(score(noProto.rollout, noProto.caseDoc).guardrails).toEqual([]);
    const withProto = refundWith({ PROTO: {} }, harm("__proto__", "eq", {}));
    expect(score(withProto.rollout, withProto.caseDoc).guardrails.map((g) => g.code)).toEqual(["customer_harm"]);

    const noCtor = refundWith({}, harm("constructor", "ne", "x"));
    expect(score(noCtor.rollout, noCtor.caseDoc).reasons).toContainEqual(
      expect.objectContaining({ code: "customer_harm", field: "constructor", actual: null }),
    );
    const required = { required_writes: [{ tool: "finance.issue_refund", args: { constructor: "x" } }] };
    const missing = refundWith({}, required);
    expect(score(missing.rollout, missing.caseDoc).reasons).toContainEqual(
      expect.objectContaining({ code: "required_write_args_mismatch", field: "constructor", actual: null }),
    );
  });

  it("compares only own keys: an inherited property is not a key of the expected value", () => {
    expect(eq({}, Object.create({ v: 1 }))).toBe(true);
    expect(eq(parsed({ PROTO: { v: 1 } }), parsed({ PROTO: { v: 1 } }))).toBe(true);
    expect(eq(parsed({ PROTO: { v: 2 } }), parsed({ PROTO: { v: 1 } }))).toBe(false);
    expect(eq({}, parsed({ constructor: 1 }))).toBe(false);
  });
});
