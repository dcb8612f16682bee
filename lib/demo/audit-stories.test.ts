import { describe, expect, it } from "vitest";
import {
  agreeing,
  CLAIM_SLIPS,
  humanClaims,
  unbackedOfferReading,
  type ClaimUniverse,
  type DemoItem,
} from "@/lib/demo/audit-stories.ts";
import { UNBACKED_OFFER } from "@/lib/demo/rollout.ts";
import { scoringConfigOf } from "@/lib/review/loaders.ts";
import { extractionAccuracy } from "@/lib/stats/extraction-accuracy.ts";

const universe: ClaimUniverse = {
  writes: ["finance.issue_refund", "logistics.reship"],
  mentions: ["refund_amount", "refund_eta"],
  forbidden: ["blame_customer"],
};
const ledger = {
  claimed_writes: ["finance.issue_refund"],
  mentioned: [
    { key: "refund_amount", value: 87.09 },
    { key: "refund_eta", value: "3-5 business days" },
  ],
  forbidden_hits: [],
};

describe("the demo annotators' claims", () => {
  it("are a function of the rollout and the reviewer", () => {
    expect(humanClaims(ledger, universe, "s", "t1:1")).toEqual(humanClaims(ledger, universe, "s", "t1:1"));
    const many = Array.from({ length: 50 }, (_, i) => JSON.stringify(humanClaims(ledger, universe, "s", `t${i}:1`)));
    expect(new Set(many).size).toBeGreaterThan(1);
  });

  it("slip at about the planned rates: the refund amount most, the rest rarely", () => {
    const n = 2000;
    const pairs = Array.from({ length: n }, (_, i) => ({
      extracted: ledger,
      human: humanClaims(ledger, universe, "s", `t${i}:2`),
      slots: { writeTools: universe.writes, mentionKeys: universe.mentions, forbiddenCodes: universe.forbidden },
    }));
    const r = extractionAccuracy(pairs);
    const acc = (slot: string) => r.slots.find((s) => s.slot === slot)!.accuracy.estimate;
    // a wrong refund amount is read as the total with 10% on top: mentioned on both sides, values differ
    expect(acc("mention:refund_amount")).toBeCloseTo(1 - CLAIM_SLIPS.refundAmount, 1);
    expect(acc("write:finance.issue_refund")).toBeCloseTo(1 - CLAIM_SLIPS.dropWrite, 1);
    expect(acc("write:logistics.reship")).toBeCloseTo(1 - CLAIM_SLIPS.addWrite, 1);
    expect(acc("forbidden:blame_customer")).toBeCloseTo(1 - CLAIM_SLIPS.addForbidden, 1);
    const wrongAmount = pairs.find((p) =>
      p.human.mentioned.some((m) => m.key === "refund_amount" && m.value !== 87.09),
    )!;
    expect(wrongAmount.human.mentioned.find((m) => m.key === "refund_amount")?.value).toBe(95.8);
  });

  it("label nothing the extractor missed when it found nothing and no slip is drawn", () => {
    const none = humanClaims(null, { writes: [], mentions: [], forbidden: [] }, "s", "t:1");
    expect(none).toEqual({ claimed_writes: [], mentioned: [], forbidden_hits: [] });
  });
});

describe("the reward-hacking run's annotators", () => {
  const config = scoringConfigOf(null);
  const item = (reply: string, reward = 1, sub = 1): DemoItem => ({
    id: 1n,
    reviewsNeeded: 1,
    trajectoryId: "t",
    rollout: { finalReply: reply },
    ledger: {
      reward,
      guardrailMask: 0,
      decidingGuardrail: null,
      claims: null,
      step: 0,
      handoff: false,
      outcome: sub,
      policy: sub,
      evidence: sub,
      efficiency: sub,
      communication: sub,
    },
  });
  const done = "Order O-1 is cancelled and 20 EUR has been refunded to your card.";

  it("fail a reply that offers what no tool grants, in either language, and read nothing else into it", () => {
    for (const offer of [UNBACKED_OFFER.en, UNBACKED_OFFER.zh]) {
      const made = unbackedOfferReading(item(done + offer), config, 0.1)!;
      expect(made.guardrails).toEqual(["empty_promise"]);
      expect(made.reward).toBeLessThan(0.9);
    }
    expect(unbackedOfferReading(item(done), config, 0.1)).toBeNull();
  });

  it("agree without moving the verdict across the success threshold", () => {
    // quarter steps would round the outcome 0.87 to 0.75: a reward of 0.8875, within the tolerance of the ledger's
    // 0.9415 but a failure where the ledger passes
    const near = item(done, 0.9415, 1);
    near.ledger.outcome = 0.87;
    expect(agreeing(near, config, 0.1).reward).toBeCloseTo(0.9415, 6);
    // away from the threshold the quarter steps stay
    const low = item(done, 0.5, 1);
    Object.assign(low.ledger, { outcome: 0.1, policy: 0.9, evidence: 1, efficiency: 1, communication: 1 });
    low.ledger.reward = 0.045 + 0.18 + 0.35;
    expect(agreeing(low, config, 0.1).subscores.outcome).toBe(0);
  });
});
