import { describe, expect, it } from "vitest";
import { formatSearch, MAX_SEARCH_LENGTH, MAX_SEARCH_TERMS, parseSearch } from "@/lib/search/parse.ts";

const terms = (text: string) => {
  const r = parseSearch(text);
  if (!r.ok) throw new Error(r.error);
  return r.query.terms;
};
const error = (text: string) => {
  const r = parseSearch(text);
  if (r.ok) throw new Error(`parsed: ${JSON.stringify(r.query)}`);
  return r.error;
};

describe("parseSearch", () => {
  it("reads words, phrases, exclusions and fields", () => {
    expect(terms('refund "has been processed" -sorry reply:arrives tool:finance.issue_refund arg:59.99')).toEqual([
      { field: null, text: "refund", phrase: false, exclude: false },
      { field: null, text: "has been processed", phrase: true, exclude: false },
      { field: null, text: "sorry", phrase: false, exclude: true },
      { field: "reply", text: "arrives", phrase: false, exclude: false },
      { field: "tool", text: "finance.issue_refund", phrase: false, exclude: false },
      { field: "arg", text: "59.99", phrase: false, exclude: false },
    ]);
    expect(terms('result:"not found" -ticket:"air fryer" TICKET:Broken')).toEqual([
      { field: "result", text: "not found", phrase: true, exclude: false },
      { field: "ticket", text: "air fryer", phrase: true, exclude: true },
      { field: "ticket", text: "Broken", phrase: false, exclude: false },
    ]);
  });

  it("reads Chinese words, phrases and mixed text", () => {
    expect(terms('退款 reply:"已为您安排退款" 订单O-1 -取消')).toEqual([
      { field: null, text: "退款", phrase: false, exclude: false },
      { field: "reply", text: "已为您安排退款", phrase: true, exclude: false },
      { field: null, text: "订单O-1", phrase: false, exclude: false },
      { field: null, text: "取消", phrase: false, exclude: true },
    ]);
  });

  it("keeps regex, LIKE and backslash characters as text", () => {
    expect(terms(String.raw`abc.*d+ 100%_off "C:\path" [xyz]? (abc|def)`).map((t) => t.text)).toEqual([
      "abc.*d+",
      "100%_off",
      String.raw`C:\path`,
      "[xyz]?",
      "(abc|def)",
    ]);
  });

  it("names the position of an unclosed quote, an empty phrase and a quote inside a word", () => {
    expect(error('refund "has been')).toBe("this quote is never closed (at character 8)");
    expect(error('refund ""')).toBe("the phrase is empty (at character 8)");
    expect(error('ref"und')).toBe('a quote inside a word; put the whole phrase in quotes ("…") (at character 4)');
  });

  it("names an unknown field, an empty field and a lone minus", () => {
    expect(error("refund replies:x")).toMatch(
      /^unknown field "replies:"; fields are reply:, tool:, arg:, result:, ticket: .*\(at character 8\)$/,
    );
    expect(error("refund reply:")).toBe('"reply:" needs a word or a "phrase" after it (at character 8)');
    expect(error("refund - x")).toBe("a lone - needs a word after it (at character 8)");
  });

  it("refuses words too short to look up, but not exclusions", () => {
    expect(error("a")).toMatch(/^"a" is too short to search for: .*\(at character 1\)$/);
    expect(error("refund ok")).toMatch(/^"ok" is too short.*\(at character 8\)$/);
    expect(error("退")).toMatch(/too short/);
    expect(error("%%%")).toMatch(/too short/);
    expect(error("O-1")).toMatch(/too short/);
    expect(terms("arg:59.99 O-12").map((t) => t.text)).toEqual(["59.99", "O-12"]);
    expect(terms("refund -ok").map((t) => t.text)).toEqual(["refund", "ok"]);
  });

  it("refuses a search that is empty or only exclusions", () => {
    expect(error("   ")).toBe("the search is empty (at character 1)");
    expect(error("-refund -sorry")).toMatch(/at least one term to find/);
  });

  it("refuses too many terms and too much text, naming the limit", () => {
    const many = Array.from({ length: 100 }, (_, i) => `w${String(i).padStart(2, "0")}`).join(" ");
    expect(error(many)).toBe(
      `a search has at most ${MAX_SEARCH_TERMS} terms; narrow it with a phrase in quotes (at character ${many.indexOf(`w${MAX_SEARCH_TERMS}`) + 1})`,
    );
    expect(error("x".repeat(10_000))).toBe(
      `a search has at most ${MAX_SEARCH_LENGTH} characters (given 10000) (at character ${MAX_SEARCH_LENGTH + 1})`,
    );
    expect(terms(Array.from({ length: MAX_SEARCH_TERMS }, (_, i) => `word${i}`).join(" "))).toHaveLength(
      MAX_SEARCH_TERMS,
    );
  });

  it("formats a query back to text that parses to the same query", () => {
    const text = 'refund "has been processed" -sorry reply:退款 -ticket:"air fryer"';
    const r = parseSearch(text);
    expect(r.ok && formatSearch(r.query)).toBe(text);
    expect(r.ok && terms(formatSearch(r.query))).toEqual(r.ok && r.query.terms);
  });
});
