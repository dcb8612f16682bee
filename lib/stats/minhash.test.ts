import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  createMinHasher,
  estimateJaccard,
  groupNearDuplicates,
  jaccard,
  normalizeText,
  shingles,
} from "@/lib/stats/minhash.ts";

describe("normalizeText", () => {
  it("folds case, punctuation, digits and whitespace", () => {
    expect(normalizeText("  Your refund has been arranged!! ")).toBe("your refund has been arranged");
    expect(normalizeText("Refund of 59.99 EUR\n\tfor order #A-1234.")).toBe("refund of ## ## eur for order a ####");
    expect(normalizeText("您的退款已经安排好了，请注意查收！")).toBe("您的退款已经安排好了 请注意查收");
    expect(normalizeText("Ｒｅｆｕｎｄ　１２３")).toBe("refund ###"); // full-width letters, digits and space (NFKC)
    expect(normalizeText("…!?")).toBe("");
  });
});

describe("shingles and jaccard", () => {
  it("cuts character 3-grams of the normalised text", () => {
    expect([...shingles("Abcd!")]).toEqual(["abc", "bcd"]);
    expect([...shingles("退款已安排")]).toEqual(["退款已", "款已安", "已安排"]);
    expect([...shingles("ab")]).toEqual(["ab"]); // shorter than n: one shingle
    expect(shingles("").size).toBe(0);
    expect(shingles("aaaa").size).toBe(1); // a set
  });

  it("cuts word n-grams on request", () => {
    expect([...shingles("Your refund has been arranged", { unit: "word", size: 2 })]).toEqual([
      "your refund",
      "refund has",
      "has been",
      "been arranged",
    ]);
    expect(() => shingles("x", { size: 0 })).toThrow(RangeError);
  });

  it("counts a character outside the BMP as one character", () => {
    // U+20000 is one CJK character but two UTF-16 code units.
    expect([...shingles("a\u{20000}bc")]).toEqual(["a\u{20000}b", "\u{20000}bc"]);
  });

  it("jaccard by hand; null for two empty sets", () => {
    expect(jaccard(new Set(["a", "b", "c"]), new Set(["b", "c", "d"]))).toBe(0.5);
    expect(jaccard(new Set(["a"]), new Set())).toBe(0);
    expect(jaccard(new Set(), new Set())).toBeNull();
  });
});

describe("MinHash", () => {
  it("is deterministic for a seed and differs across seeds", () => {
    const s = shingles("your refund has been arranged");
    expect(createMinHasher({ seed: 3 }).signature(s)).toEqual(createMinHasher({ seed: 3 }).signature(s));
    expect(createMinHasher({ seed: 3 }).signature(s)).not.toEqual(createMinHasher({ seed: 4 }).signature(s));
  });

  it("estimates Jaccard within a few standard errors", () => {
    const hasher = createMinHasher({ numHashes: 512, seed: 9 });
    const texts = [
      [
        "Your refund has been arranged and will arrive in 3-5 business days.",
        "Your refund has been arranged and should arrive within 3-5 business days.",
      ],
      ["Your refund has been arranged.", "Your replacement has been shipped."],
      ["您的退款已经安排好了，请注意查收。", "您的换货已经安排好了，请注意查收。"],
    ];
    for (const [a, b] of texts) {
      const exact = jaccard(shingles(a), shingles(b))!;
      const est = estimateJaccard(hasher.signature(shingles(a)), hasher.signature(shingles(b)));
      // se = sqrt(J(1 − J)/512) ≤ 0.022
      expect(Math.abs(est - exact)).toBeLessThan(0.07);
    }
  });

  it("identical sets have identical signatures", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (t) => {
        const h = createMinHasher({ numHashes: 16 });
        expect(estimateJaccard(h.signature(shingles(t)), h.signature(shingles(t + " ")))).toBe(1);
      }),
    );
  });

  it("rejects signatures from different families", () => {
    expect(() => estimateJaccard(new Uint32Array(4), new Uint32Array(8))).toThrow(RangeError);
  });
});

describe("groupNearDuplicates", () => {
  it("groups English replies that differ in case, punctuation and amounts, but not different replies", () => {
    const texts = [
      "Your refund has been arranged.",
      "I have transferred you to a human agent.",
      "your refund has been arranged!!",
      "Your replacement has been shipped.",
      "YOUR REFUND HAS BEEN ARRANGED",
      "Your refund of 59.99 EUR has been arranged.",
      "Your refund of 12.50 EUR has been arranged.",
    ];
    const groups = groupNearDuplicates(texts);
    expect(groups.map((g) => g.indices)).toEqual([[0, 2, 4], [5, 6], [1], [3]]);
    expect(groups[0]).toMatchObject({
      representative: "Your refund has been arranged.",
      representativeIndex: 0,
      count: 3,
    });
  });

  it("groups reworded near-duplicates at the default threshold (0.7)", () => {
    const groups = groupNearDuplicates([
      "Your refund has been arranged and will arrive in 3-5 business days.",
      "Your refund has been arranged and should arrive within 3-5 business days.",
    ]);
    expect(groups).toHaveLength(1);
  });

  it("groups Chinese replies by character 3-grams", () => {
    const texts = [
      "您的退款已经安排好了，请注意查收。",
      "已为您转接人工客服，请稍候。",
      "您的退款已经安排好了，请您注意查收！", // one inserted character: Jaccard 0.71
      "您的换货已经安排好了，请注意查收。", // exchange instead of refund: Jaccard 0.56
      "已为您转接人工客服，请稍候！！",
    ];
    const groups = groupNearDuplicates(texts);
    expect(groups.map((g) => g.indices)).toEqual([[0, 2], [1, 4], [3]]);
    // At a looser threshold the exchange reply joins the refund replies.
    expect(groupNearDuplicates(texts, { threshold: 0.5 }).map((g) => g.indices)).toEqual([
      [0, 2, 3],
      [1, 4],
    ]);
  });

  it("represents a group by its most frequent variant", () => {
    const groups = groupNearDuplicates([
      "Refund arranged!",
      "refund arranged.",
      "Refund arranged",
      "REFUND ARRANGED!!",
      "refund  arranged",
    ]);
    expect(groups).toHaveLength(1);
    expect(groups[0].representativeIndex).toBe(0);
    const mixed = groupNearDuplicates([
      "Your refund has been arranged now.",
      "Your refund has been arranged!",
      "your refund has been arranged",
    ]);
    expect(mixed[0]).toMatchObject({ count: 3, representative: "Your refund has been arranged!" });
  });

  it("finds every member of a large template group (LSH recall)", () => {
    const texts = Array.from(
      { length: 200 },
      (_, i) => `Your refund of ${i}.${i % 100} EUR for order ${1000 + i} has been arranged${"!".repeat(i % 3)}`,
    );
    texts.push("I have transferred you to a human agent.");
    const groups = groupNearDuplicates(texts);
    expect(groups.map((g) => g.count)).toEqual([200, 1]);
  });

  it("puts empty replies together and handles no input", () => {
    expect(groupNearDuplicates(["", "  ", "...", "ok"]).map((g) => g.indices)).toEqual([[0, 1, 2], [3]]);
    expect(groupNearDuplicates([])).toEqual([]);
  });

  it("rejects invalid options", () => {
    expect(() => groupNearDuplicates(["a"], { threshold: 0 })).toThrow(RangeError);
    expect(() => groupNearDuplicates(["a"], { numHashes: 128, bands: 5 })).toThrow(RangeError);
  });

  it("property: a deterministic partition of the inputs", () => {
    const words = fc.constantFrom("refund", "arranged", "退款", "已安排", "order", "!!", "12", "agent");
    fc.assert(
      fc.property(
        fc.array(
          fc.array(words, { maxLength: 6 }).map((w) => w.join(" ")),
          { maxLength: 30 },
        ),
        (texts) => {
          const groups = groupNearDuplicates(texts);
          const all = groups.flatMap((g) => g.indices).sort((a, b) => a - b);
          expect(all).toEqual(texts.map((_, i) => i));
          for (const g of groups) {
            expect(g.count).toBe(g.indices.length);
            expect(g.indices).toContain(g.representativeIndex);
            expect(texts[g.representativeIndex]).toBe(g.representative);
          }
          for (let i = 1; i < groups.length; i++) expect(groups[i - 1].count).toBeGreaterThanOrEqual(groups[i].count);
          expect(groupNearDuplicates(texts)).toEqual(groups);
        },
      ),
      { numRuns: 50 },
    );
  });
});
