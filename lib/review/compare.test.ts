import { describe, expect, it } from "vitest";
import { compareWithLedger, setDiff, type ScoredSide } from "@/lib/review/compare.ts";

const side = (over: Partial<ScoredSide> = {}): ScoredSide => ({
  reward: 0.2,
  subscores: { outcome: 0, policy: 0.5, evidence: 0, efficiency: 1, communication: 0 },
  guardrails: ["empty_promise"],
  claims: {
    claimed_writes: ["finance.issue_refund"],
    mentioned: [{ key: "refund_amount", value: 59.99 }],
    forbidden_hits: [],
  },
  ...over,
});

describe("compareWithLedger", () => {
  it("agrees on an identical review", () => {
    const c = compareWithLedger(side(), side(), 0.1);
    expect(c).toMatchObject({
      rewardDelta: 0,
      rewardDisagrees: false,
      guardrailsDiffer: false,
      claimsDiffer: false,
      disagrees: false,
    });
  });

  it("uses the tolerance inclusively, robust to float error (0.4 vs 0.3 at 0.1 agrees)", () => {
    expect(compareWithLedger(side({ reward: 0.4 }), side({ reward: 0.3 }), 0.1).disagrees).toBe(false);
    expect(compareWithLedger(side({ reward: 0.41 }), side({ reward: 0.3 }), 0.1).disagrees).toBe(true);
    expect(compareWithLedger(side({ reward: 0.3 }), side({ reward: 0.41 }), 0.1).rewardDelta).toBeCloseTo(-0.11, 12);
  });

  it("disagrees when the guardrail sets differ, even with equal rewards", () => {
    const c = compareWithLedger(side({ guardrails: ["empty_promise", "missing_evidence"] }), side(), 0.1);
    expect(c.guardrails).toEqual({ both: ["empty_promise"], onlyHuman: ["missing_evidence"], onlyLedger: [] });
    expect(c).toMatchObject({ rewardDisagrees: false, guardrailsDiffer: true, disagrees: true });
  });

  it("disagrees when the ledger has no reward", () => {
    const c = compareWithLedger(
      side(),
      side({
        reward: null,
        subscores: { outcome: null, policy: null, evidence: null, efficiency: null, communication: null },
      }),
      0.1,
    );
    expect(c).toMatchObject({ rewardDelta: null, disagrees: true });
    expect(c.subscoreDeltas.outcome).toBeNull();
  });

  it("marks claim differences without sending the item to adjudication", () => {
    const human = side({
      claims: {
        claimed_writes: [],
        mentioned: [{ key: "refund_amount", value: "59.9" }, { key: "refund_eta" }],
        forbidden_hits: ["blame_customer"],
      },
    });
    const c = compareWithLedger(human, side(), 0.1);
    expect(c.claimedWrites).toEqual({ both: [], onlyHuman: [], onlyLedger: ["finance.issue_refund"] });
    expect(c.forbiddenHits.onlyHuman).toEqual(["blame_customer"]);
    // 59.9 is within 1% of 59.99 (mention equality); refund_eta only on the human side
    expect(c.mentions).toEqual([
      { key: "refund_amount", human: "59.9", ledger: 59.99, humanHas: true, ledgerHas: true, same: true },
      { key: "refund_eta", human: undefined, ledger: undefined, humanHas: true, ledgerHas: false, same: false },
    ]);
    expect(c).toMatchObject({ claimsDiffer: true, disagrees: false });
  });

  it("reports sub-score deltas human − ledger", () => {
    const c = compareWithLedger(
      side({ subscores: { outcome: 1, policy: 0.5, evidence: 0.25, efficiency: 1, communication: 0 } }),
      side(),
      0.1,
    );
    expect(c.subscoreDeltas).toEqual({ outcome: 1, policy: 0, evidence: 0.25, efficiency: 0, communication: 0 });
  });
});

describe("setDiff", () => {
  it("orders guardrails by table order and handles empty sides", () => {
    expect(setDiff(["missing_evidence", "customer_harm"], [])).toEqual({
      both: [],
      onlyHuman: ["customer_harm", "missing_evidence"],
      onlyLedger: [],
    });
    expect(setDiff([], [])).toEqual({ both: [], onlyHuman: [], onlyLedger: [] });
  });
});
