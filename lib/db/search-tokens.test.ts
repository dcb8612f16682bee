// The keys of the search index: CJK character pairs in every range the search names, words split at spaces only.
import { describe, expect, it } from "vitest";
import { addSearchWords, cjkBigrams, foldCase, hasCjkPair, searchWords } from "@/lib/db/search-tokens.ts";

/** The CJK ranges of search-tokens' CJK_CLASS (and migration 038's verity_cjk_bigrams), first and last code point. */
const RANGES = [
  [0x1100, 0x11ff],
  [0x3040, 0x309f],
  [0x30a0, 0x30ff],
  [0x3130, 0x318f],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xac00, 0xd7af],
  [0xf900, 0xfaff],
  [0x20000, 0x2fffd],
];

describe("cjkBigrams", () => {
  it("finds the pairs of every CJK range, at its first and last character, in a text that has no other", () => {
    for (const [lo, hi] of RANGES) {
      const pair = String.fromCodePoint(lo, hi);
      expect([lo.toString(16), cjkBigrams(`order ${pair}.`)]).toEqual([lo.toString(16), [pair]]);
    }
  });

  it("finds none next to the ranges, nor in a single CJK character", () => {
    expect(cjkBigrams(`${String.fromCodePoint(0x10ff, 0x1200, 0x302f)} 退 refund`)).toEqual([]);
    expect(cjkBigrams("mixed 退款 and 𠀀𠀁𠀂")).toEqual(["退款", "𠀀𠀁", "𠀁𠀂"]);
  });

  it("finds every pair whatever was asked of hasCjkPair before (a search's terms, then an ingest's texts)", () => {
    expect(hasCjkPair("已为您安排退款")).toBe(true);
    expect(cjkBigrams("已为您安排退款")).toEqual(["为您", "安排", "已为", "您安", "排退", "退款"]);
    expect(hasCjkPair("退款")).toBe(true);
    expect(cjkBigrams("您好，退款")).toEqual(["您好", "退款"]);
    expect(hasCjkPair("退 refund")).toBe(false);
    expect(hasCjkPair("退款")).toBe(true);
    expect(hasCjkPair("x 退款")).toBe(true);
  });
});

describe("searchWords", () => {
  it("splits at spaces, tabs and line breaks only, keeping repeats; addSearchWords gives the same words", () => {
    const text = " Refund\tprocessed,\r\n\v\frefund  finance.issue_refund 退款 ";
    expect(searchWords(text)).toEqual(["Refund", "processed,", "refund", "finance.issue_refund", "退款"]);
    const into = new Set<string>(["x"]);
    addSearchWords(`${text} Refund`, into);
    expect([...into]).toEqual(["x", "Refund", "processed,", "refund", "finance.issue_refund", "退款"]);
  });
});

describe("foldCase", () => {
  it("lowers each letter on its own, as PostgreSQL's lower() does: İ is i and Σ is σ wherever they stand", () => {
    expect(foldCase("Refund PROCESSED, finance.Issue_Refund O-20007 退款")).toBe(
      "refund processed, finance.issue_refund o-20007 退款",
    );
    // toLowerCase makes İ two characters (i and a combining dot) and a final Σ ς: one character each here
    expect("İ".toLowerCase()).toHaveLength(2);
    expect(foldCase("İSTANBUL")).toBe("istanbul");
    expect("ΟΔΟΣ".toLowerCase()).toBe("οδος");
    expect(foldCase("ΟΔΟΣ ΣΑΣ")).toBe("οδοσ σασ");
  });
});
