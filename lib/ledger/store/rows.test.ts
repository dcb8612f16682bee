import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { ledgerEntryRows, ledgerHash, recordFromLedger } from "@/lib/ledger/store/ledger-rows.ts";
import { caseRow, rolloutRow } from "@/lib/ledger/store/rows.ts";
import { codesOfMask, guardrailMask } from "@/lib/verifier/guardrail-mask.ts";
import { caseSchema, rolloutSchema, scoreRecordSchema, type ScoreRecord } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reversedKeys(x)]),
    );
  return v;
}

const verifierRecord = () =>
  scoreRollout(
    rolloutSchema.parse(rolloutLine("t/1", "T-1", { example: "04" })),
    caseSchema.parse(caseLine("T-1", "04")),
  );

describe("content hashes", () => {
  it("of a case ignore key order and change with the content", () => {
    const a = caseRow(caseSchema.parse(caseLine("T-1")));
    const b = caseRow(caseSchema.parse(reversedKeys(caseLine("T-1"))));
    expect(b.content_hash).toBe(a.content_hash);
    const changed = caseLine("T-1");
    (changed.env_snapshot as { order: { paid_amount: number } }).order.paid_amount = 10;
    expect(caseRow(caseSchema.parse(changed)).content_hash).not.toBe(a.content_hash);
  });

  it("of a rollout are the same for the same line and differ for another reply", () => {
    const a = rolloutRow(rolloutSchema.parse(rolloutLine("t/1", "T-1")));
    expect(rolloutRow(rolloutSchema.parse(rolloutLine("t/1", "T-1"))).content_hash).toBe(a.content_hash);
    const other = rolloutLine("t/1", "T-1");
    (other.trajectory as { final_reply: string }).final_reply = "other";
    expect(rolloutRow(rolloutSchema.parse(other)).content_hash).not.toBe(a.content_hash);
    expect(a.tool_steps).toBe(4);
    expect(a.group_id).toBe("run-a/s1/T-1");
  });

  it("of a tool registry ignore key order", () => {
    const a = rolloutRow(rolloutSchema.parse(rolloutLine("t/1", "T-1")));
    const r = rolloutLine("t/1", "T-1");
    r.tool_registry = (r.tool_registry as object[]).map((t) => reversedKeys(t));
    expect(rolloutRow(rolloutSchema.parse(r)).registry_hash).toBe(a.registry_hash);
  });
});

describe("ledger rows", () => {
  it("of a verifier record: columns, narrow rows, and the wire record back unchanged", () => {
    const record = verifierRecord();
    const r = ledgerEntryRows(record);
    if (!r.ok) throw new Error(r.message);
    expect(r.rows.values).toMatchObject({
      source: "verifier",
      status: "scored",
      reward: 0.3,
      deciding_guardrail: "duplicate_side_effect",
      outcome: 1,
    });
    expect(codesOfMask(r.rows.values.guardrail_mask)).toEqual(["duplicate_side_effect"]);
    expect(r.rows.guardrails).toEqual([{ code: "duplicate_side_effect", cap: 0.3, deciding: true }]);
    expect(r.rows.reasons.map((x) => x.code)).toContain("duplicate_side_effect");
    const wire: Record<string, unknown> = { ...record };
    delete wire.sample_index; // not a ledger column
    expect(recordFromLedger(r.rows.values)).toEqual(wire);
    // The hash reuses the jsonb columns' text; it must equal the plain definition.
    expect(r.rows.content_hash).toBe(ledgerHash(r.rows.values));
    expect(JSON.parse(r.rows.json.reasons)).toEqual(r.rows.values.reasons);
  });

  it("of an external record: guardrail codes become objects, deciding = lowest cap, empty lists dropped", () => {
    const parsed = scoreRecordSchema.parse(
      externalScore("t/2", "T-1", 0.2, {
        guardrails: ["policy_error", { code: "missing_evidence", cap: 0.1 }],
      }),
    );
    const r = ledgerEntryRows(parsed);
    if (!r.ok) throw new Error(r.message);
    expect(r.rows.values).toMatchObject({
      source: "external",
      status: "scored",
      deciding_guardrail: "missing_evidence",
      capped: true,
      claims: null,
    });
    expect(r.rows.guardrails).toEqual([
      { code: "policy_error", cap: 0.45, deciding: false },
      { code: "missing_evidence", cap: 0.1, deciding: true },
    ]);
    const wire = recordFromLedger(r.rows.values);
    expect(wire).toEqual({
      kind: "score",
      source: "external",
      trajectory_id: "t/2",
      run_id: "run-a",
      step: 1,
      ticket_id: "T-1",
      reward: 0.2,
      raw_reward: 0.8,
      guardrails: [{ code: "policy_error" }, { code: "missing_evidence", cap: 0.1 }],
    });
  });

  it("round-trip: wire record -> rows -> wire record is a fixed point with the same hash (property)", () => {
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    const external = fc.record({
      reward: unit,
      raw_reward: fc.option(unit, { nil: undefined }),
      subscores: fc.option(fc.record({ outcome: unit, policy: unit }, { requiredKeys: [] }), { nil: undefined }),
      guardrails: fc.option(fc.subarray(["empty_promise", "policy_error", "customer_harm"] as const), {
        nil: undefined,
      }),
      group_id: fc.option(fc.constantFrom("g1", "g2"), { nil: undefined }),
    });
    fc.assert(
      fc.property(external, (e) => {
        const v = JSON.parse(
          JSON.stringify({ source: "external", trajectory_id: "t", run_id: "r", step: 3, ticket_id: "T", ...e }),
        );
        const first = ledgerEntryRows(scoreRecordSchema.parse(v) as ScoreRecord);
        if (!first.ok) return;
        expect(first.rows.content_hash).toBe(ledgerHash(first.rows.values));
        const wire = JSON.parse(JSON.stringify(recordFromLedger(first.rows.values)));
        const second = ledgerEntryRows(scoreRecordSchema.parse(reversedKeys(wire)) as ScoreRecord);
        if (!second.ok) throw new Error(second.message);
        expect(second.rows.content_hash).toBe(first.rows.content_hash);
        expect(recordFromLedger(second.rows.values)).toEqual(wire);
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a record without identity", () => {
    const r = ledgerEntryRows({
      ...verifierRecord(),
      status: "input_error",
      trajectory_id: null,
    } as unknown as ScoreRecord);
    expect(r).toEqual({
      ok: false,
      path: "trajectory_id",
      message: "a score record without trajectory_id cannot be stored in the ledger",
    });
  });

  it("masks guardrails by their position in the verifier's table", () => {
    expect(guardrailMask(["customer_harm", "missing_evidence", "nonsense"])).toBe(0b100001);
    expect(codesOfMask(0b100001)).toEqual(["customer_harm", "missing_evidence"]);
    expect(codesOfMask(0)).toEqual([]);
  });
});
