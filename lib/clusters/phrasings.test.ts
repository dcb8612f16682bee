import { describe, expect, it } from "vitest";
import { topPhrasings } from "@/lib/clusters/phrasings.ts";

describe("topPhrasings", () => {
  it("puts near-duplicate replies in one group, largest first, with its share of the sample", () => {
    const replies = [
      "Your refund has been arranged.",
      "We are looking into it.",
      "your refund has been arranged!!",
      "Your refund has been arranged",
      "您好，已为您安排退款。",
    ].map((reply, i) => ({ trajectoryId: `t${i}`, reply }));
    const s = topPhrasings(replies, 2);
    expect(s.sampled).toBe(5);
    expect(s.phrasings).toHaveLength(2);
    expect(s.phrasings[0]).toEqual({
      text: "Your refund has been arranged.",
      count: 3,
      share: 0.6,
      exampleTrajectoryId: "t0",
    });
    expect(s.phrasings[1].count).toBe(1);
  });

  it("is empty without replies", () => {
    expect(topPhrasings([])).toEqual({ sampled: 0, phrasings: [] });
  });
});
