// trained_reward in the wire schemas and the content hashes: a line without it hashes exactly as before the field
// existed (the hashes below were computed before it did), a line with it hashes differently, and a bad value is
// refused at its own path.
import { describe, expect, it } from "vitest";
import { fastRollout, fastScoredRecord } from "@/lib/ingest/fast-validate.ts";
import { entryHash, ledgerEntryRows, recordFromLedger, withTrainedReward } from "@/lib/ledger/store/ledger-rows.ts";
import { rolloutRow } from "@/lib/ledger/store/rows.ts";
import { parseLineValue } from "@/lib/ingest/schema.ts";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { caseSchema, rolloutSchema, scoreRecordSchema } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

const BEFORE = {
  rollout: "ac000a1ba8eb0f5538e9bf2a7d2d49136170f8a734b5cda20e1f640b4a42ea72",
  external: "a9dca718ceb56c795e1e6b950d8c98ae5327129e866a14ece1f3afa6f7869e84",
  verifier: "410dee44c0f9b574bc2e5fcad55405b4f2409cb1b6ac906f65051f81815d42da",
};

const rollout = (extra: Record<string, unknown> = {}) =>
  rolloutSchema.parse({ ...rolloutLine("pin/1", "T-PIN"), ...extra });
const external = (extra: Record<string, unknown> = {}) => {
  const e = ledgerEntryRows(
    scoreRecordSchema.parse({ ...externalScore("pin/1", "T-PIN", 0.7, { guardrails: ["empty_promise"] }), ...extra }),
  );
  if (!e.ok) throw new Error(e.message);
  return e.rows;
};
const verifier = (extra: Record<string, unknown> = {}) => {
  const e = ledgerEntryRows({ ...scoreRollout(rollout(), caseSchema.parse(caseLine("T-PIN"))), ...extra });
  if (!e.ok) throw new Error(e.message);
  return e.rows;
};

describe("content hashes with and without trained_reward", () => {
  it("hash a line without trained_reward (or with null) exactly as before the field existed", () => {
    expect(rolloutRow(rollout()).content_hash).toBe(BEFORE.rollout);
    expect(rolloutRow(rollout({ trained_reward: null })).content_hash).toBe(BEFORE.rollout);
    expect(external().content_hash).toBe(BEFORE.external);
    expect(external({ trained_reward: null }).content_hash).toBe(BEFORE.external);
    expect(verifier().content_hash).toBe(BEFORE.verifier);
  });

  it("hash a line with a trained reward differently, and each value differently", () => {
    const a = rolloutRow(rollout({ trained_reward: 0.5 }));
    const b = rolloutRow(rollout({ trained_reward: 0.5000001 }));
    expect(a.content_hash).not.toBe(BEFORE.rollout);
    expect(b.content_hash).not.toBe(a.content_hash);
    expect(a.trained_reward).toBe(0.5);
    const e = external({ trained_reward: -3 });
    expect(e.record_hash).toBe(BEFORE.external);
    expect(e.content_hash).toBe(entryHash(BEFORE.external, -3));
    expect(e.content_hash).not.toBe(BEFORE.external);
  });

  it("give an entry that takes its rollout's trained reward the hash of a record that carries it", () => {
    const inherited = withTrainedReward(external(), 0.25);
    expect(inherited.content_hash).toBe(external({ trained_reward: 0.25 }).content_hash);
    expect(inherited.values.trained_reward).toBe(0.25);
    const v = withTrainedReward(verifier(), 0.25);
    expect(v.content_hash).toBe(verifier({ trained_reward: 0.25 }).content_hash);
  });

  it("write trained_reward into the exported record only when there is one, and the record parses again", () => {
    expect(recordFromLedger(verifier().values)).not.toHaveProperty("trained_reward");
    const wire = recordFromLedger(withTrainedReward(verifier(), 1.5).values);
    expect(wire.trained_reward).toBe(1.5);
    const again = ledgerEntryRows(scoreRecordSchema.parse(JSON.parse(JSON.stringify(wire))));
    expect(again.ok && again.rows.content_hash).toBe(withTrainedReward(verifier(), 1.5).content_hash);
    expect(recordFromLedger(external({ trained_reward: 2 }).values).trained_reward).toBe(2);
  });
});

describe("trained_reward at the boundary", () => {
  const cases: [string, unknown, string][] = [
    ["a string", "0.5", 'expected a finite number or null (got the string "0.5")'],
    ["a boolean", true, "expected a finite number or null (got boolean)"],
    ["an object", { value: 1 }, "expected a finite number or null (got object)"],
    ["infinity (1e999 in JSON)", JSON.parse("1e999"), "expected a finite number or null (got Infinity)"],
  ];
  for (const [what, value, message] of cases) {
    it(`refuses ${what} on a rollout and on score records, at trained_reward`, () => {
      for (const line of [
        { ...rolloutLine("b/1", "T-B"), trained_reward: value },
        { ...externalScore("b/1", "T-B", 0.5), trained_reward: value },
        { ...scoreRollout(rollout(), caseSchema.parse(caseLine("T-PIN"))), trained_reward: value },
      ]) {
        const parsed = parseLineValue(line);
        expect(parsed.ok).toBe(false);
        if (!parsed.ok) expect(parsed.issue).toEqual({ path: "trained_reward", message });
      }
    });
  }

  it("accepts any finite number (the trainer's scale), and null", () => {
    for (const v of [0, 1, -2.5, 17, 1e-9, null]) {
      expect(parseLineValue({ ...rolloutLine("b/1", "T-B"), trained_reward: v }).ok).toBe(true);
      expect(parseLineValue({ ...externalScore("b/1", "T-B", 0.5), trained_reward: v }).ok).toBe(true);
    }
  });

  it("never lets the fast path accept what zod refuses", () => {
    const r = rolloutLine("b/1", "T-B");
    const s = { ...scoreRollout(rollout(), caseSchema.parse(caseLine("T-PIN"))) } as Record<string, unknown>;
    for (const bad of ["0.5", Infinity, NaN, {}, true]) {
      expect(fastRollout({ ...r, trained_reward: bad })).toBeNull();
      expect(fastScoredRecord({ ...s, trained_reward: bad })).toBeNull();
    }
    expect(fastRollout({ ...r, trained_reward: 0.5 })).not.toBeNull();
    expect(fastScoredRecord({ ...s, trained_reward: 0.5 })).not.toBeNull();
  });
});
