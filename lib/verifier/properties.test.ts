// Invariants of the verifier over generated cases and rollouts (fast-check).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DIMENSIONS, GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { DEFAULT_CONFIG, parseVerifierConfig, type VerifierConfig } from "@/lib/verifier/config.ts";
import { makeCase, makeRollout, REFUND_ARGS, REGISTRY, tool } from "@/lib/testing/verifier-fixtures.ts";
import {
  verifierScoreSchema,
  type Case,
  type Claims,
  type Rollout,
  type VerifierScoreRecord,
} from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";
import { scoreInput } from "@/lib/verifier/score-input.ts";

const allOn = parseVerifierConfig({ guardrails: Object.fromEntries(GUARDRAIL_CODES.map((c) => [c, { on: true }])) });
if (!allOn.ok) throw new Error("config");
const CONFIGS: VerifierConfig[] = [DEFAULT_CONFIG, allOn.config];

const WRITE_TOOLS = REGISTRY.filter((t) => t.kind === "write").map((t) => t.name);
const TOOLS = [...REGISTRY.map((t) => t.name), "crm.unknown"];
const ARGS: Record<string, unknown>[] = [
  {},
  { order_id: "O-1" },
  REFUND_ARGS,
  { ...REFUND_ARGS, amount: 29.99 },
  { ...REFUND_ARGS, amount: "59.99" },
  { order_id: "O-1", label_paid_by: "customer" },
  { order_id: "O-1", label_paid_by: "merchant" },
  { topic: "damaged_item" },
  { customer_id: "C-99" },
  { customer_id: "C-77" },
];
const INSTANTS = ["2026-11-02T09:30:00Z", "2026-11-02T10:30:00Z", "2026-11-02T12:00:00+02:00"];

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    handoff: fc.constantFrom("required", "allowed", "not_allowed", undefined),
    required_writes: fc.subarray([
      {
        tool: "finance.issue_refund",
        args: { order_id: "$order.id", amount: "$order.paid_amount", currency: "$order.currency" },
      },
      {
        tool: "logistics.create_return",
        args: { order_id: "$order.id" },
        after: ["attachment.get", { any_of: ["policy.search", "order.get"] }],
      },
      { tool: "order.cancel" },
    ]),
    required_reads: fc.subarray([
      "order.get",
      "attachment.get",
      "policy.search",
      { any_of: ["customer.get", "order.get"] },
    ]),
    allowed_writes: fc.constantFrom(
      undefined,
      [],
      ["logistics.create_return"],
      [{ tool: "logistics.reship", args: { order_id: "$order.id" } }],
    ),
    must_mention: fc.subarray([
      { key: "refund_amount", value: "$order.paid_amount" },
      { key: "refund_eta" },
      { key: "handoff_notice" },
    ]),
    forbidden: fc.subarray(["blame_customer", "promise_compensation"]),
    step_budget: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
    risk: fc.option(
      fc.constant({ tools: ["finance.issue_refund"], arg: "amount", threshold: 50, check: "risk.check" }),
      { nil: undefined },
    ),
    approval: fc.option(fc.constant({ tools: ["finance.issue_refund", "order.cancel"] }), { nil: undefined }),
    privacy: fc.option(fc.constant({ customer: "$order.customer_id", customer_args: ["customer_id"] }), {
      nil: undefined,
    }),
    deadline: fc.option(fc.constant("2026-11-02T10:00:00Z"), { nil: undefined }),
  })
  .map((spec) => makeCase(spec));

const claimsArb: fc.Arbitrary<Claims> = fc.record({
  claimed_writes: fc.subarray(WRITE_TOOLS),
  mentioned: fc.subarray([
    { key: "refund_amount", value: 59.99 },
    { key: "refund_amount", value: 30 },
    { key: "refund_eta" },
    { key: "handoff_notice" },
  ]),
  forbidden_hits: fc.subarray(["blame_customer", "promise_compensation"]),
});

const rolloutArb: fc.Arbitrary<Rollout> = fc
  .record({
    steps: fc.array(fc.record({ name: fc.constantFrom(...TOOLS), args: fc.constantFrom(...ARGS), ok: fc.boolean() }), {
      maxLength: 14,
    }),
    writes: fc.array(
      fc.record({
        tool: fc.constantFrom(...WRITE_TOOLS),
        args: fc.constantFrom(...ARGS),
        step: fc.option(fc.nat(), { nil: undefined }),
        at: fc.option(fc.constantFrom(...INSTANTS), { nil: undefined }),
      }),
      { maxLength: 5 },
    ),
    claims: claimsArb,
    approvals: fc.subarray([
      { tool: "finance.issue_refund", status: "approved", args: { order_id: "O-1" } },
      { tool: "order.cancel", status: "pending" },
    ]),
  })
  .map(({ steps, writes, claims, approvals }) =>
    makeRollout({
      steps: steps.map((s) => tool(s.name, s.args, s.ok ? "success" : "failed")),
      writes: writes.map((w) => ({
        tool: w.tool,
        args: w.args,
        ...(w.step !== undefined && steps.length > 0 ? { step: w.step % steps.length } : {}),
        ...(w.at ? { at: w.at } : {}),
      })),
      claims,
      tables: { approvals },
    }),
  );

const inputArb = fc.record({ rollout: rolloutArb, caseDoc: caseArb, config: fc.constantFrom(...CONFIGS) });
type Scored = Extract<VerifierScoreRecord, { status: "scored" }>;
function scored(r: VerifierScoreRecord): Scored {
  if (r.status !== "scored") throw new Error(`unexpected ${r.status}: ${JSON.stringify(r.reasons)}`);
  return r;
}

describe("verifier invariants", () => {
  it("produces valid records with sub-scores in [0, 1] and reward <= raw_reward <= 1", () => {
    fc.assert(
      fc.property(inputArb, ({ rollout, caseDoc, config }) => {
        const r = scored(scoreRollout(rollout, caseDoc, config));
        expect(verifierScoreSchema.safeParse(r).success).toBe(true);
        for (const d of DIMENSIONS) {
          expect(r.subscores[d]).toBeGreaterThanOrEqual(0);
          expect(r.subscores[d]).toBeLessThanOrEqual(1);
        }
        expect(r.reward).toBeLessThanOrEqual(r.raw_reward);
        expect(r.raw_reward).toBeLessThanOrEqual(1);
      }),
      { numRuns: 400 },
    );
  });

  it("never lets the reward exceed the cap of a triggered guardrail; the deciding one has the lowest cap", () => {
    fc.assert(
      fc.property(inputArb, ({ rollout, caseDoc, config }) => {
        const r = scored(scoreRollout(rollout, caseDoc, config));
        for (const g of r.guardrails) expect(r.reward).toBeLessThanOrEqual(g.cap);
        const lowest = Math.min(1, ...r.guardrails.map((g) => g.cap));
        expect(r.reward).toBe(Math.min(r.raw_reward, lowest));
        expect(r.deciding_guardrail).toBe(r.guardrails.find((g) => g.cap === lowest)?.code ?? null);
        expect(r.capped).toBe(lowest < r.raw_reward);
      }),
      { numRuns: 400 },
    );
  });

  it("explains every sub-score below 1 and every triggered guardrail", () => {
    fc.assert(
      fc.property(inputArb, ({ rollout, caseDoc, config }) => {
        const r = scored(scoreRollout(rollout, caseDoc, config));
        for (const d of DIMENSIONS) if (r.subscores[d] < 1) expect(r.reasons.some((x) => x.dimension === d)).toBe(true);
        for (const g of r.guardrails) expect(r.reasons.some((x) => x.guardrail === g.code)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("is deterministic: the same input gives the same bytes, also from a deep copy", () => {
    fc.assert(
      fc.property(inputArb, ({ rollout, caseDoc, config }) => {
        const a = JSON.stringify(scoreRollout(rollout, caseDoc, config));
        expect(JSON.stringify(scoreRollout(rollout, caseDoc, config))).toBe(a);
        expect(JSON.stringify(scoreRollout(structuredClone(rollout), structuredClone(caseDoc), config))).toBe(a);
      }),
    );
  });

  it("never raises the reward when the reply claims one more write the sandbox lacks", () => {
    fc.assert(
      fc.property(inputArb, fc.constantFrom(...WRITE_TOOLS), ({ rollout, caseDoc, config }, extra) => {
        fc.pre(!rollout.sandbox.writes.some((w) => w.tool === extra));
        const before = scored(scoreRollout(rollout, caseDoc, config));
        const more = structuredClone(rollout);
        more.claims?.claimed_writes.push(extra);
        const after = scored(scoreRollout(more, caseDoc, config));
        expect(after.reward).toBeLessThanOrEqual(before.reward);
        if (config.guardrails.empty_promise.on) expect(after.guardrails.map((g) => g.code)).toContain("empty_promise");
      }),
      { numRuns: 300 },
    );
  });

  it("lets claims move only communication and empty_promise (free text cannot change facts)", () => {
    fc.assert(
      fc.property(inputArb, claimsArb, ({ rollout, caseDoc, config }, other) => {
        const a = scored(scoreRollout(rollout, caseDoc, config));
        const b = scored(scoreRollout({ ...rollout, claims: other }, caseDoc, config));
        for (const d of DIMENSIONS) if (d !== "communication") expect(b.subscores[d]).toBe(a.subscores[d]);
        const rest = (r: Scored) => r.guardrails.filter((g) => g.code !== "empty_promise");
        expect(rest(b)).toEqual(rest(a));
      }),
      { numRuns: 300 },
    );
  });

  it("does not depend on the order of object keys", () => {
    fc.assert(
      fc.property(inputArb, fc.integer(), ({ rollout, caseDoc, config }, seed) => {
        const a = scoreRollout(rollout, caseDoc, config);
        const b = scoreRollout(shuffleKeys(rollout, seed), shuffleKeys(caseDoc, seed + 1), config);
        expect(b).toEqual(a);
      }),
      { numRuns: 300 },
    );
  });

  it("turns any JSON into a record without throwing", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        const r = scoreInput(json, () => undefined);
        expect(r.status).toBe("input_error");
        expect(r.reasons.length).toBeGreaterThan(0);
      }),
    );
  });
});

/** A deep copy with every object's keys in a seeded pseudo-random order. */
function shuffleKeys<T>(value: T, seed: number): T {
  let s = seed >>> 0 || 1;
  const rand = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [keys[i], keys[j]] = [keys[j], keys[i]];
    }
    return Object.fromEntries(keys.map((k) => [k, walk((v as Record<string, unknown>)[k])]));
  };
  return walk(value) as T;
}
