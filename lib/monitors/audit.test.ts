import { describe, expect, it } from "vitest";
import {
  auditPoints,
  auditPointsOf,
  auditSeries,
  auditStepsOf,
  auditTotals,
  AuditWindows,
  pairSlots,
  windowStart,
  type AuditPair,
} from "@/lib/monitors/audit.ts";
import { wilson } from "@/lib/stats/intervals.ts";

const claims = (
  writes: string[],
  mentioned: { key: string; value?: number | string }[] = [],
  forbidden: string[] = [],
) => ({ claimed_writes: writes, mentioned, forbidden_hits: forbidden });

let nextItem = 1n;
function pair(step: number, ledger: number | null, human: number, over: Partial<AuditPair> = {}): AuditPair {
  return {
    itemId: nextItem++,
    primary: true,
    step,
    ledgerReward: ledger,
    humanReward: human,
    tolerance: 0.1,
    ledgerClaims: claims(["finance.issue_refund"], [{ key: "refund_amount", value: 59.99 }]),
    humanClaims: claims(["finance.issue_refund"], [{ key: "refund_amount", value: 59.99 }]),
    slots: {
      writeTools: ["finance.issue_refund", "logistics.create_return"],
      mentionKeys: ["refund_amount", "refund_eta"],
      forbiddenCodes: ["blame_customer"],
    },
    ...over,
  };
}

describe("shadow audit over steps", () => {
  it("windows are a fixed grid from step 0", () => {
    expect([0, 499, 500, 1999].map((s) => windowStart(s, 500))).toEqual([0, 0, 500, 1500]);
  });

  it("a pair's slots come from its own case: 2 write tools + 2 mention keys + 1 forbidden code", () => {
    expect(pairSlots(pair(0, 1, 1))).toEqual({ correct: 5, n: 5 });
    // the extractor missed the refund claim and the amount: write slot and mention slot wrong
    expect(pairSlots(pair(0, 1, 1, { ledgerClaims: claims([]) }))).toEqual({ correct: 3, n: 5 });
    expect(pairSlots(pair(0, 1, 1, { ledgerClaims: null }))).toBeNull();
  });

  it("an item counts once, through its primary review, and only when its ledger entry was compared", () => {
    // as on /agreement: a second reviewer of an overlap item and a ledger entry without a reward add no slots
    expect(pairSlots(pair(0, 1, 1, { primary: false }))).toBeNull();
    expect(pairSlots(pair(0, null, 1))).toBeNull();
  });

  it("agreement within the batch tolerance (|0.4 − 0.3| counts as agreeing), extraction pooled over slots, human success", () => {
    const pairs = [
      pair(10, 0.3, 0.4),
      pair(20, 0.3, 0.95),
      pair(30, null, 0.9), // spec error on the ledger side: not compared, still a review
      pair(600, 1, 1, { ledgerClaims: claims([]) }),
      pair(610, 1, 1, { primary: false }), // the second review of an overlap item: the item counts once, as on /agreement
    ];
    const [w0, w1] = auditPoints(pairs, 500);
    expect(w0).toMatchObject({
      step: 0,
      stepTo: 499,
      reviews: 3,
      compared: 2,
      agreeing: 1,
      slots: 10,
      correctSlots: 10,
      humanSuccesses: 2,
    });
    expect(w0.agreement).toEqual(wilson(1, 2));
    expect(w0.humanSuccess).toEqual(wilson(2, 3));
    expect(w1).toMatchObject({ step: 500, reviews: 1, compared: 1, agreeing: 1, slots: 5, correctSlots: 3 });
    expect(w1.extraction!.estimate).toBe(0.6);
    expect(auditSeries([w0, w1]).agreement).toEqual([
      { step: 0, value: 0.5, n: 2 },
      { step: 500, value: 1, n: 1 },
    ]);
  });

  it("claims stored without their lists (`{}`) count as claiming nothing, as on the agreement report", () => {
    const empty = {} as unknown as AuditPair["humanClaims"];
    // the human claimed nothing: the refund write and the amount are wrong slots, the rest agree
    expect(pairSlots(pair(0, 1, 1, { humanClaims: empty }))).toEqual({ correct: 3, n: 5 });
    expect(auditPoints([pair(0, 1, 1, { humanClaims: empty, ledgerClaims: empty })], 500)[0]).toMatchObject({
      slots: 5,
      correctSlots: 5,
    });
  });

  it("pooled per step, in any order, the reviews give every width's windows and any range's sums", () => {
    const pairs = [
      pair(610, 1, 1, { primary: false }),
      pair(10, 0.3, 0.4),
      pair(999, 0.2, 0.2),
      pair(20, 0.3, 0.95),
      pair(600, 1, 1, { ledgerClaims: claims([]) }),
      pair(30, null, 0.9),
      pair(10, 0.9, 0.9),
    ];
    const perStep = new AuditWindows(1);
    for (const p of pairs) perStep.add(p);
    const steps = auditStepsOf(perStep);
    expect([...steps.step]).toEqual([10, 20, 30, 600, 999]);
    for (const width of [1, 7, 100, 500, 1000]) expect(auditPointsOf(steps, width)).toEqual(auditPoints(pairs, width));
    const inRange = pairs.filter((p) => p.step >= 20 && p.step <= 610);
    const w = auditPoints(inRange, 10_000)[0];
    expect(auditTotals(steps, { from: 20, to: 610 })).toEqual({
      compared: w.compared,
      agreeing: w.agreeing,
      slots: w.slots,
      correctSlots: w.correctSlots,
    });
    expect(w.compared).toBe(2);
  });

  it("no reviews → no points", () => {
    expect(auditPoints([], 500)).toEqual([]);
  });
});
