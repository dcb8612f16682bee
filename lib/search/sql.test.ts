import { describe, expect, it } from "vitest";
import { indexedSearch as query, parsedSearch as indexedSearchQuery } from "@/lib/testing/search-data.ts";
import { caselessRegex, mayBeLeftOut, matchCondition, pairMatchesSql, searchBlocksSql } from "@/lib/search/sql.ts";

describe("searchBlocksSql", () => {
  it("looks the words up in lower case with LIKE, a longer word first (most blocks fail it)", () => {
    const sql = searchBlocksSql(query('"Has been PROCESSED" O-20007 arg:59.99 退款 -refund'), "big", 129)!;
    // 退款 has no trigram (its pairs are checked on the rollouts) and an exclusion narrows nothing
    expect(sql.values).toEqual(["big", "% processed%", "%o-20007%", "%59.99%", "% been %", "%has %", 129]);
    expect(sql.text).toMatch(/b\.words like \$2 and b\.words like \$3 and .* b\.words like \$6 limit \$7$/);
    expect(sql.text).not.toMatch(/ilike/);
  });

  it("has nothing to ask of the blocks for Chinese terms only, which the pairs' index answers", () => {
    expect(searchBlocksSql(query("退款 -refund"), "big", 129)).toBeNull();
    // looked up by its pairs, then checked as written
    // one pair is found by its pair alone; the exclusion is checked as written
    expect(pairMatchesSql(query("退款 -refund"), "big", 257)?.values).toEqual(["big", ["退款"], "refund", 257, "big"]);
    expect(pairMatchesSql(query('"已为您安排退款"'), "big", 257)?.values[1]).toEqual([
      "为您",
      "安排",
      "已为",
      "您安",
      "排退",
      "退款",
    ]);
    expect(pairMatchesSql(query("refund"), "big", 257)).toBeNull();
  });
});

describe("a term's check of a rollout's texts", () => {
  it("is a case-insensitive regular expression for an ASCII term, every character but letters and digits escaped", () => {
    expect(caselessRegex("Has been PROCESSED")).toBe("Has\\ been\\ PROCESSED");
    expect(caselessRegex("100%_off")).toBe("100\\%\\_off");
    expect(caselessRegex("x.y(z)[1]{2}*+?|^$\\")).toBe("x\\.y\\(z\\)\\[1\\]\\{2\\}\\*\\+\\?\\|\\^\\$\\\\");
    // i and k with the capitals beyond ASCII that lower() folds to them
    expect(caselessRegex("Kiwi")).toBe("[k\u212a][i\u0130]w[i\u0130]");
    // beyond ASCII: ILIKE
    expect(caselessRegex("café")).toBeNull();
    expect(caselessRegex("退款")).toBeNull();
  });

  it("is LIKE without letters that have a case, the regular expression for ASCII letters, ILIKE for others", () => {
    const sql = matchCondition(indexedSearchQuery("reply:59.99 refund -tool:Élan"));
    expect(sql.text).toMatch(/^s\.reply like \$1 and \(s\.reply .* ~\* \$2 and not \(s\.tools ilike \$3\)$/);
    expect(sql.values).toEqual(["%59.99%", "refund", "%Élan%"]);
  });

  it("is made in the texts joined, but in each text in turn for a term checked with LIKE and without a space", () => {
    const joined = "(s.reply || ' ' || s.tools || ' ' || s.args || ' ' || s.results || ' ' || s.ticket)";
    // a phrase may run from one field into the next; a regular expression costs more in five calls than in one
    const phrase = matchCondition(indexedSearchQuery('"air fryer" -refund'));
    expect(phrase.text).toBe(`${joined} ~* $1 and not (${joined} ~* $2)`);
    expect(phrase.values).toEqual(["a[i\u0130]r\\ fryer", "refund"]);
    expect(matchCondition(indexedSearchQuery('"59.99 EUR"')).text).toBe(`${joined} ~* $1`);
    expect(matchCondition(indexedSearchQuery('"59.99 €"')).text).toBe(`${joined} like $1`);
    // LIKE without a space: field by field, until one holds it
    const word = matchCondition(indexedSearchQuery("refund -59.99"));
    expect(word.text).toBe(
      `${joined} ~* $1 and not ((s.reply like $2 or s.tools like $3 or s.args like $4 or s.results like $5 or s.ticket like $6))`,
    );
    expect(word.values).toEqual(["refund", ...Array(5).fill("%59.99%")]);
  });

  it("finds one CJK pair in no field by its pair alone, and checks a longer term or one in a field as written", () => {
    const pair = matchCondition(indexedSearchQuery("退款"));
    expect(pair.text).toBe("cardinality(s.cjk) > 0 and s.cjk @> $1::text[]");
    expect(pair.values).toEqual([["退款"]]);
    const phrase = matchCondition(indexedSearchQuery("安排退款"));
    expect(phrase.text).toMatch(
      /^cardinality\(s\.cjk\) > 0 and s\.cjk @> \$1::text\[\] and \(s\.reply like \$2 or .*\)$/,
    );
    expect(phrase.values).toEqual([["安排", "排退", "退款"], ...Array(5).fill("%安排退款%")]);
    const field = matchCondition(indexedSearchQuery("reply:退款"));
    expect(field.text).toBe("cardinality(s.cjk) > 0 and s.cjk @> $1::text[] and s.reply like $2");
    // an exclusion is checked as written: the index finds rollouts, not their absence
    expect(matchCondition(indexedSearchQuery("refund -退款")).text).toMatch(/and not \(\(s\.reply like \$\d+ or /);
  });
});

describe("the words a run's blocks leave out (046)", () => {
  const omitted = new Set(["has", "been", "finance.issue_refund", '{"refund":', "refunded"]);

  it("hold a part where its block condition looks for it: a word's end, start, anywhere, or the whole word", () => {
    // the only part of a term: anywhere in a word
    expect(mayBeLeftOut("refund", true, true, omitted)).toBe(true); // in refunded and {"refund":
    expect(mayBeLeftOut("issue", true, true, omitted)).toBe(true);
    expect(mayBeLeftOut("o-20007", true, true, omitted)).toBe(false);
    // a first part: at a word's end
    expect(mayBeLeftOut("has", true, false, omitted)).toBe(true);
    expect(mayBeLeftOut("refund", true, false, omitted)).toBe(true); // finance.issue_refund ends with it
    expect(mayBeLeftOut("refunds", true, false, omitted)).toBe(false); // no listed word ends with it
    expect(mayBeLeftOut("unded", true, false, omitted)).toBe(true);
    // a last part: at a word's start
    expect(mayBeLeftOut("refund", false, true, omitted)).toBe(true);
    expect(mayBeLeftOut("funded", false, true, omitted)).toBe(false);
    // a part between: a whole word
    expect(mayBeLeftOut("been", false, false, omitted)).toBe(true);
    expect(mayBeLeftOut("bee", false, false, omitted)).toBe(false);
  });

  it("are not asked of the blocks; the rest of the search is, and every term is still checked on the rollouts", () => {
    const sql = searchBlocksSql(
      query('"Has been PROCESSED" O-20007 tool:finance.issue_refund', [...omitted]),
      "big",
      129,
    )!;
    expect(sql.values).toEqual(["big", "% processed%", "%o-20007%", 129]);
    // a search whose every part a left-out word could hold asks the blocks nothing
    expect(searchBlocksSql(query("refund has", [...omitted]), "big", 129)).toBeNull();
    expect(searchBlocksSql(query("refund has"), "big", 129)?.values).toEqual(["big", "%refund%", "%has%", 129]);
  });
});
