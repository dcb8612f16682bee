import { describe, expect, it } from "vitest";
import { CLAIM_SLIPS, humanClaims, type ClaimUniverse } from "@/lib/demo/audit-stories.ts";
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
