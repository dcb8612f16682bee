// The search index's blocks as ingest writes them (rollout_search_blocks, migration 042): one run's rollouts in id
// order, SEARCH_BLOCK_ROWS at a time, with the distinct words of their texts.
import { describe, expect, it } from "vitest";
import { jsonbText, SEARCH_BLOCK_ROWS, searchBlocks, type SearchTexts } from "@/lib/ledger/store/search-rows.ts";

const texts = (reply: string, ticket = ""): SearchTexts => ({ reply, tools: "", args: "", results: "", ticket });

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
