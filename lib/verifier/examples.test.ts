// The worked examples (lib/verifier/examples), compared exactly as their README says.
import { describe, expect, it } from "vitest";
import { DIMENSIONS } from "@/lib/verifier/codes.ts";
import { verifierScoreSchema, type VerifierScoreRecord } from "@/lib/verifier/schema.ts";
import { scoreInput } from "@/lib/verifier/score-input.ts";

// Vitest (Vite) reads the files at transform time: this pure folder stays free of node:fs, tests included.
const FILES = import.meta.glob<unknown>("./examples/*.json", { eager: true, import: "default" });
const byName = new Map(Object.entries(FILES).map(([p, json]) => [p.slice(p.lastIndexOf("/") + 1), json]));
if (byName.size === 0) throw new Error("no worked examples in lib/verifier/examples");
const names = [...byName.keys()]
  .filter((f) => !f.endsWith(".expected.json"))
  .map((f) => f.slice(0, -".json".length))
  .sort();

/** The fields an expected file may list (examples/README.md). */
type Expected = Record<string, unknown> & {
  raw_reward?: number | null;
  reward?: number | null;
  subscores?: Record<string, number | null>;
  guardrails?: { code: string; cap: number }[];
  reasons?: Record<string, unknown>[];
};

// A deep copy per use: scoring must not depend on (or change) the shared module object.
function read(file: string): unknown {
  if (!byName.has(file)) throw new Error(`missing spec example ${file}`);
  return structuredClone(byName.get(file));
}
const noCase = () => undefined;

function closeOrNull(actual: number | null | undefined, expected: number | null) {
  if (expected === null) expect(actual).toBeNull();
  else {
    expect(actual).not.toBeNull();
    expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(1e-6);
  }
}

describe("spec examples", () => {
  it("finds the ten examples", () => {
    expect(names.length).toBeGreaterThanOrEqual(10);
  });

  it.each(names)("%s", (name) => {
    const record = scoreInput(read(`${name}.json`), noCase);
    const expected = read(`${name}.expected.json`) as Expected;
    for (const f of ["status", "capped", "deciding_guardrail", "handoff", "tool_steps", "trajectory_id"]) {
      if (f in expected) expect(record[f as keyof VerifierScoreRecord], f).toEqual(expected[f]);
    }
    for (const f of ["raw_reward", "reward"] as const) if (f in expected) closeOrNull(record[f], expected[f] ?? null);
    if (expected.subscores) {
      for (const d of DIMENSIONS) closeOrNull(record.subscores?.[d], expected.subscores[d] ?? null);
    }
    if (expected.guardrails) {
      expect(record.guardrails.map((g) => ({ code: g.code, cap: g.cap }))).toEqual(expected.guardrails);
    }
    for (const reason of expected.reasons ?? []) expect(record.reasons).toContainEqual(expect.objectContaining(reason));
    // Beyond the README: the record is valid, and everything below 1 or triggered is explained.
    expect(verifierScoreSchema.safeParse(record).success).toBe(true);
    if (record.status === "scored") {
      for (const d of DIMENSIONS) {
        if (record.subscores[d] < 1)
          expect(
            record.reasons.some((r) => r.dimension === d),
            d,
          ).toBe(true);
      }
      for (const g of record.guardrails)
        expect(
          record.reasons.some((r) => r.guardrail === g.code),
          g.code,
        ).toBe(true);
    }
  });

  it("explains the under-refund with field, pointer, expected and actual", () => {
    const record = scoreInput(read("05-under-refund.json"), noCase);
    expect(record.reasons).toContainEqual(
      expect.objectContaining({
        dimension: "outcome",
        code: "required_write_args_mismatch",
        tool: "finance.issue_refund",
        field: "amount",
        pointer: "$order.paid_amount",
        expected: 59.99,
        actual: 29.99,
      }),
    );
  });

  it("names the late read of example 10", () => {
    const record = scoreInput(read("10-evidence-per-write.json"), noCase);
    expect(record.reasons).toContainEqual(
      expect.objectContaining({ dimension: "evidence", code: "required_read_after_write", tool: "attachment.get" }),
    );
    expect(record.guardrails[0].evidence).toEqual({
      unsatisfied: [
        {
          requirement: "attachment.get",
          field: "required_writes.0.after.0",
          before: {
            index: 0,
            tool: "finance.issue_refund",
            args: { order_id: "O-1", amount: 59.99, currency: "EUR" },
            position: 1,
          },
        },
      ],
    });
  });
});
