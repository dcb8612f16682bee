import { describe, expect, it } from "vitest";
import { parsedSearch as query } from "@/lib/testing/search-data.ts";
import { pairMatchesSql, searchBlocksSql } from "@/lib/search/sql.ts";

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
    expect(pairMatchesSql(query("退款 -refund"), "big", 257)?.values).toEqual([
      "big",
      ["退款"],
      "%退款%",
      "%refund%",
      257,
      "big",
    ]);
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
