// The search index's blocks as ingest writes them (rollout_search_blocks, migration 042): one run's rollouts in id
// order, SEARCH_BLOCK_ROWS at a time, with the distinct words of their texts.
import { describe, expect, it } from "vitest";
import {
  blockRow,
  commonWords,
  jsonbText,
  OMIT_MAX_CHARS,
  OMIT_MIN_BLOCKS,
  SEARCH_BLOCK_ROWS,
  searchBlocks as blocksOf,
  type SearchBlock,
  type SearchTexts,
} from "@/lib/ledger/store/search-rows.ts";

const texts = (reply: string, ticket = ""): SearchTexts => ({ reply, tools: "", args: "", results: "", ticket });
/** The blocks' rows as written for a run that leaves no word out. */
const searchBlocks = (rows: Parameters<typeof blocksOf>[0]) => blocksOf(rows).map((b) => blockRow(b, new Set()));

describe("searchBlocks", () => {
  it("groups each run's rollouts in id order, SEARCH_BLOCK_ROWS at a time, runs apart", () => {
    const rows = Array.from({ length: 2 * SEARCH_BLOCK_ROWS + 3 }, (_, i) => ({
      runId: i % 2 ? "b" : "a",
      id: BigInt(1000 - i),
      texts: texts(`w${i}`),
    }));
    const blocks = searchBlocks(rows);
    expect(blocks.map((b) => [b[0], b[1], b[2]])).toEqual([
      ["a", "966", "996"],
      ["a", "998", "1000"],
      ["b", "967", "997"],
      ["b", "999", "999"],
    ]);
    // the first block of run a: ids 966 … 996, every other one, the rollouts 34 … 4
    expect(blocks[0][3]).toBe(` ${Array.from({ length: 16 }, (_, k) => `w${34 - 2 * k}`).join(" ")} `);
  });

  it("keeps each word once, in lower case, between spaces, split at spaces, tabs and line breaks only", () => {
    const [block] = searchBlocks([
      { runId: "r", id: 1n, texts: texts("Refund\tprocessed,  refund\n已为您安排退款", "refund processed,") },
      { runId: "r", id: 2n, texts: { ...texts("退款 Refund"), tools: "finance.issue_refund\norder.get" } },
    ]);
    // Refund and refund are one word: a search looks its words up in lower case (migration 044)
    expect(block[3]).toBe(" refund processed, 已为您安排退款 退款 finance.issue_refund order.get ");
  });

  it("holds the words of a text that several of its rollouts share, in the order first met", () => {
    const ticket = "my fryer broke";
    const [block] = searchBlocks(
      ["refund sent", "no refund", "fryer replaced"].map((reply, i) => ({
        runId: "r",
        id: BigInt(i + 1),
        texts: { ...texts(reply, ticket), tools: "order.get" },
      })),
    );
    expect(block[3]).toBe(" refund sent order.get my fryer broke no replaced ");
  });
});

describe("the words a run's blocks leave out", () => {
  const block = (i: number, ...words: string[]): SearchBlock => ({
    runId: "r",
    first: BigInt(16 * i + 1),
    last: BigInt(16 * i + 16),
    words: new Set(words),
  });

  it("are the words of more than half of a batch's blocks, the most frequent first, not those listed before", () => {
    const n = OMIT_MIN_BLOCKS + 8; // 40 blocks: a word in 21 of them is common, in 20 it is not
    const blocks = Array.from({ length: n }, (_, i) =>
      block(
        i,
        "the",
        ...(i < 21 ? ["refund"] : []),
        ...(i < 20 ? ["parcel"] : []),
        ...(i < 30 ? ["your"] : []),
        `o-${i}`,
      ),
    );
    expect(commonWords(blocks, new Set(), 100)).toEqual(["the", "your", "refund"]);
    expect(commonWords(blocks, new Set(["the"]), 100)).toEqual(["your", "refund"]);
    // room for one more: the most frequent
    expect(commonWords(blocks, new Set(), 1)).toEqual(["the"]);
    expect(commonWords(blocks, new Set(), 0)).toEqual([]);
  });

  it("are none from a batch of fewer than OMIT_MIN_BLOCKS blocks of the run", () => {
    const blocks = Array.from({ length: OMIT_MIN_BLOCKS - 1 }, (_, i) => block(i, "the"));
    expect(commonWords(blocks, new Set(), 100)).toEqual([]);
    expect(commonWords([...blocks, block(99, "the")], new Set(), 100)).toEqual(["the"]);
  });

  it("never hold a word longer than OMIT_MAX_CHARS (the list is a key)", () => {
    const long = "x".repeat(OMIT_MAX_CHARS + 1);
    const blocks = Array.from({ length: OMIT_MIN_BLOCKS }, (_, i) => block(i, long, "x".repeat(OMIT_MAX_CHARS)));
    expect(commonWords(blocks, new Set(), 100)).toEqual(["x".repeat(OMIT_MAX_CHARS)]);
  });

  it("are left out of a block's row, the others kept in order", () => {
    expect(blockRow(block(0, "your", "refund", "o-20007", "the"), new Set(["the", "your"]))).toEqual([
      "r",
      "1",
      "16",
      " refund o-20007 ",
    ]);
    expect(blockRow(block(1, "the"), new Set(["the"]))[3]).toBe("  ");
  });
});

describe("jsonbText", () => {
  it("orders keys as jsonb does: shorter first (in bytes), then by byte, ASCII or not", () => {
    expect(jsonbText({ b: 1, aa: [{ y: null, x: "é" }], a: 2 })).toBe(
      '{"a": 2, "b": 1, "aa": [{"x": "é", "y": null}]}',
    );
    expect(jsonbText({ é: 1, z: 2, ab: 3 })).toBe('{"z": 2, "ab": 3, "é": 1}');
  });

  it("prints the same keys met in another order, nested or not, in jsonb's order each time", () => {
    const printed = '{"a": {"c": [], "dd": {}}, "bb": [1, "x", true, null]}';
    expect(jsonbText({ a: { c: [], dd: {} }, bb: [1, "x", true, null] })).toBe(printed);
    expect(jsonbText({ bb: [1, "x", true, null], a: { dd: {}, c: [] } })).toBe(printed);
    expect(jsonbText({ a: { dd: {}, c: [] }, bb: [1, "x", true, null] })).toBe(printed);
    // one key set printed before does not decide another's order
    expect(jsonbText({ dd: 1, c: 2, a: 3 })).toBe('{"a": 3, "c": 2, "dd": 1}');
  });
});
