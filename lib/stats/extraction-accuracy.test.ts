import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  extractionAccuracy,
  mentionValuesEqual,
  type Claims,
  type ExtractionPair,
} from "@/lib/stats/extraction-accuracy.ts";
import { wilson } from "@/lib/stats/intervals.ts";

const none: Claims = { claimed_writes: [], mentioned: [], forbidden_hits: [] };
const caseSlots = {
  writeTools: ["issue_refund", "change_address", "reship_order"],
  mentionKeys: ["order_id"],
  forbiddenCodes: ["promise_timeline"],
};

const pairs: ExtractionPair[] = [
  {
    slots: caseSlots,
    extracted: {
      claimed_writes: ["issue_refund"],
      mentioned: [
        { key: "refund_amount", value: 59.99 },
        { key: "order_id", value: "O-1" },
      ],
      forbidden_hits: [],
    },
    human: {
      claimed_writes: ["issue_refund"],
      mentioned: [
        { key: "refund_amount", value: "59.50" },
        { key: "order_id", value: " o-1 " },
      ],
      forbidden_hits: [],
    },
  },
  {
    slots: caseSlots,
    extracted: {
      claimed_writes: ["issue_refund", "cancel_order"],
      mentioned: [{ key: "refund_amount", value: 50 }],
      forbidden_hits: ["promise_timeline"],
    },
    human: {
      claimed_writes: [],
      mentioned: [{ key: "refund_amount", value: 59.99 }, { key: "tracking_number" }],
      forbidden_hits: ["promise_timeline"],
    },
  },
];

describe("extractionAccuracy", () => {
  it("by hand: slots per pair, per-slot and overall accuracy with Wilson intervals", () => {
    const r = extractionAccuracy(pairs);
    // Pair 1: 3 write slots right, refund_amount (59.99 within 1% of 59.50) and order_id (case, spaces) right,
    // promise_timeline right: 6/6. Pair 2: issue_refund wrong, cancel_order (outside the universe, claimed by
    // one side) wrong, the other two writes right; refund_amount (50 vs 59.99) and tracking_number (one side)
    // wrong, order_id (neither) right; promise_timeline right: 4/8. Overall 10/14.
    const bySlot = Object.fromEntries(r.slots.map((s) => [s.slot, [s.correct, s.n]]));
    expect(bySlot).toEqual({
      "write:change_address": [2, 2],
      "write:issue_refund": [1, 2],
      "write:reship_order": [2, 2],
      "write:cancel_order": [0, 1],
      "mention:order_id": [2, 2],
      "mention:refund_amount": [1, 2],
      "mention:tracking_number": [0, 1],
      "forbidden:promise_timeline": [2, 2],
    });
    expect(r.slots.map((s) => s.slot)).toEqual([
      "write:cancel_order",
      "write:change_address",
      "write:issue_refund",
      "write:reship_order",
      "mention:order_id",
      "mention:refund_amount",
      "mention:tracking_number",
      "forbidden:promise_timeline",
    ]);
    expect(r.overall).toEqual({ correct: 10, n: 14, accuracy: wilson(10, 14) });
    expect(r.belowThreshold).toBe(true); // 0.714 < 0.85
    expect(r.clearlyBelowThreshold).toBe(false); // but 10 of 14 cannot rule out 0.85 (upper ≈ 0.88)
    const issueRefund = r.slots.find((s) => s.slot === "write:issue_refund")!;
    expect(issueRefund).toMatchObject({ kind: "write", name: "issue_refund", belowThreshold: true });
    expect(issueRefund.accuracy).toEqual(wilson(1, 2));
  });

  it("all agree: accuracy 1 and no alarm; the threshold is a parameter", () => {
    const same = pairs.map((p) => ({ ...p, extracted: p.human }));
    const r = extractionAccuracy(same);
    expect(r.overall!.accuracy.estimate).toBe(1);
    expect(r.belowThreshold).toBe(false);
    expect(extractionAccuracy(pairs, { threshold: 0.7 }).belowThreshold).toBe(false);
  });

  it("none agree: every slot wrong, clearly below with enough slots", () => {
    const wrong: ExtractionPair = {
      extracted: { claimed_writes: ["issue_refund"], mentioned: [], forbidden_hits: ["promise_timeline"] },
      human: { claimed_writes: ["reship_order"], mentioned: [{ key: "order_id" }], forbidden_hits: [] },
      slots: { writeTools: ["issue_refund", "reship_order"] },
    };
    const r = extractionAccuracy(Array.from({ length: 10 }, () => wrong));
    expect(r.overall).toMatchObject({ correct: 0, n: 40 });
    expect(r.clearlyBelowThreshold).toBe(true);
  });

  it("with nothing to compare: no estimate, no alarm", () => {
    const r = extractionAccuracy([]);
    expect(r).toEqual({
      slots: [],
      overall: null,
      belowThreshold: false,
      clearlyBelowThreshold: false,
      threshold: 0.85,
    });
    // An empty universe and empty claims give no slots either.
    expect(extractionAccuracy([{ extracted: none, human: none, slots: { writeTools: [] } }]).overall).toBeNull();
  });

  it("compares a mention's value only when both sides give one (null counts as none); first value per key", () => {
    const r = extractionAccuracy([
      {
        slots: { writeTools: [] },
        extracted: { ...none, mentioned: [{ key: "amount", value: null }, { key: "reason" }] },
        human: {
          ...none,
          mentioned: [
            { key: "amount", value: 10 },
            { key: "reason", value: "damaged" },
          ],
        },
      },
      {
        slots: { writeTools: [] },
        extracted: {
          ...none,
          mentioned: [
            { key: "amount", value: 10 },
            { key: "amount", value: 99 },
          ],
        },
        human: { ...none, mentioned: [{ key: "amount" }, { key: "amount", value: 10.05 }] },
      },
    ]);
    expect(r.overall).toMatchObject({ correct: 3, n: 3 });
  });

  it("each pair over its own case's slots: a slot of one case is not a slot of another's pair", () => {
    // A refund case (two write tools, one must-mention key) and an address case (one write tool, one forbidden
    // code), both extracted perfectly. Over their own slots: 3 + 2 = 5 slots, all right. Pooled over a shared
    // universe instead, each pair would be compared on all 5 slots (10 in all).
    const refund: ExtractionPair = {
      extracted: { ...none, claimed_writes: ["issue_refund"] },
      human: { ...none, claimed_writes: ["issue_refund"] },
      slots: { writeTools: ["issue_refund", "reship_order"], mentionKeys: ["refund_amount"] },
    };
    const address: ExtractionPair = {
      extracted: none,
      human: { ...none, forbidden_hits: ["promise_timeline"] },
      slots: { writeTools: ["change_address"], forbiddenCodes: ["promise_timeline"] },
    };
    expect(extractionAccuracy([refund]).overall).toMatchObject({ correct: 3, n: 3 });
    expect(extractionAccuracy([address]).overall).toMatchObject({ correct: 1, n: 2 });
    const both = extractionAccuracy([refund, address]);
    expect(both.overall).toMatchObject({ correct: 4, n: 5 });
    expect(both.slots.map((s) => [s.slot, s.correct, s.n])).toEqual([
      ["write:change_address", 1, 1],
      ["write:issue_refund", 1, 1],
      ["write:reship_order", 1, 1],
      ["mention:refund_amount", 1, 1],
      ["forbidden:promise_timeline", 0, 1],
    ]);
  });

  it("property: pooling is additive, so an item counts the same whatever else is selected", () => {
    const tool = fc.constantFrom("a", "b", "c", "d");
    const claims = fc.record({
      claimed_writes: fc.uniqueArray(tool, { maxLength: 3 }),
      mentioned: fc.array(fc.record({ key: fc.constantFrom("k1", "k2"), value: fc.constantFrom(1, 2, "x") }), {
        maxLength: 2,
      }),
      forbidden_hits: fc.uniqueArray(fc.constantFrom("f1", "f2"), { maxLength: 2 }),
    });
    const pair = fc.record({
      extracted: claims,
      human: claims,
      slots: fc.record({
        writeTools: fc.uniqueArray(tool, { maxLength: 4 }),
        mentionKeys: fc.uniqueArray(fc.constantFrom("k1", "k2", "k3"), { maxLength: 3 }),
        forbiddenCodes: fc.uniqueArray(fc.constantFrom("f1", "f3"), { maxLength: 2 }),
      }),
    });
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 8 }), fc.array(pair, { maxLength: 8 }), (a, b) => {
        const count = (ps: ExtractionPair[]) => {
          const o = extractionAccuracy(ps).overall;
          return o ? [o.correct, o.n] : [0, 0];
        };
        const [ca, na] = count(a);
        const [cb, nb] = count(b);
        expect(count([...a, ...b])).toEqual([ca + cb, na + nb]);
      }),
    );
  });
});

describe("mentionValuesEqual", () => {
  it("numbers within 1% of the human value, numeric strings included", () => {
    expect(mentionValuesEqual(101, 100)).toBe(true);
    expect(mentionValuesEqual(101.5, 100)).toBe(false);
    expect(mentionValuesEqual("59.99", 60)).toBe(true);
    expect(mentionValuesEqual(0, 0)).toBe(true);
    expect(mentionValuesEqual(0.001, 0)).toBe(false);
    expect(mentionValuesEqual(-99.5, -100)).toBe(true);
  });

  it("strings ignoring case and whitespace, Chinese included", () => {
    expect(mentionValuesEqual("59.99 EUR", "59.99eur")).toBe(true);
    expect(mentionValuesEqual("Tracking  NUMBER", "tracking number")).toBe(true);
    expect(mentionValuesEqual("退款 已安排", "退款已安排")).toBe(true);
    expect(mentionValuesEqual("ＡＢＣ", "abc")).toBe(true); // full-width letters (NFKC)
    expect(mentionValuesEqual("退款已安排", "换货已安排")).toBe(false);
    expect(mentionValuesEqual("O-1", "O-2")).toBe(false);
  });

  it("booleans strictly; a number never equals a non-numeric string", () => {
    expect(mentionValuesEqual(true, true)).toBe(true);
    expect(mentionValuesEqual(true, "true")).toBe(false);
    expect(mentionValuesEqual(5, "five")).toBe(false);
  });
});
