import { describe, expect, it } from "vitest";
import { cjkBigrams } from "@/lib/db/search-tokens.ts";
import { searchTexts } from "@/lib/ledger/store/search-rows.ts";
import { parsedSearch as query } from "@/lib/testing/search-data.ts";
import { likePattern } from "@/lib/search/sql.ts";
import { markParts, searchSnippets, termsPattern } from "@/lib/search/snippet.ts";

describe("search documents", () => {
  it("takes the reply, the tool calls and the ticket's message, field by field", () => {
    const t = searchTexts(
      {
        finalReply: "Refunded.",
        steps: [
          { type: "tool", name: "order.get", input: { order_id: "O-1" }, output: { status: "delivered" } },
          { type: "llm", output: "thinking" },
          { type: "tool", name: "finance.issue_refund", input: { amount: 59.99 }, output: "ok" },
        ],
      },
      "My air fryer arrived broken",
    );
    expect(t).toEqual({
      reply: "Refunded.",
      tools: "order.get\nfinance.issue_refund",
      args: '{"order_id": "O-1"}\n{"amount": 59.99}',
      results: '{"status": "delivered"}\nok',
      ticket: "My air fryer arrived broken",
    });
  });

  it("pairs adjacent CJK characters only", () => {
    expect(cjkBigrams("已为您安排退款 refund 退款")).toEqual(["为您", "安排", "已为", "您安", "排退", "退款"].sort());
    expect(cjkBigrams("退 refund")).toEqual([]);
  });
});

describe("likePattern", () => {
  it("escapes LIKE's wildcards and its escape character", () => {
    expect(likePattern(String.raw`100%_off C:\x`)).toBe(String.raw`%100\%\_off C:\\x%`);
  });
});

describe("searchSnippets", () => {
  const texts = {
    reply: "Good news: your refund has been processed and arrives in 3-5 business days.",
    tools: "order.get\nfinance.issue_refund",
    args: '{"amount":59.99}',
    results: "ok",
    ticket: "我的空气炸锅坏了，请退款",
  };

  it("marks each term case-insensitively in the window around the first match", () => {
    expect(searchSnippets(query('REFUND "has been processed"'), texts, 1)).toEqual([
      {
        field: "reply",
        parts: [
          { text: "Good news: your ", mark: false },
          { text: "refund", mark: true },
          { text: " ", mark: false },
          { text: "has been processed", mark: true },
          { text: " and arrives in 3-5 business ", mark: false },
        ],
        before: false,
        after: true,
      },
    ]);
  });

  it("looks in a term's own field only, and never marks an exclusion", () => {
    const s = searchSnippets(query("tool:refund ticket:退款 -ok"), texts);
    expect(s.map((x) => x.field)).toEqual(["tool", "ticket"]);
    expect(s[1].parts).toEqual([
      { text: "我的空气炸锅坏了，请", mark: false },
      { text: "退款", mark: true },
    ]);
  });

  it("treats regex characters in a term as text", () => {
    expect(markParts("a (x) b", termsPattern(["(x)"]))).toEqual([
      { text: "a ", mark: false },
      { text: "(x)", mark: true },
      { text: " b", mark: false },
    ]);
  });
});
