import { describe, expect, it } from "vitest";
import { matchCountLabel } from "@/lib/ledger/count-label.ts";

describe("matchCountLabel", () => {
  it("gives an exact count as it is, a bound as a bound and an estimate as an estimate", () => {
    expect(matchCountLabel({ count: 192_146, exact: true })).toBe("192,146 matching");
    expect(matchCountLabel({ count: 1000, exact: false, atLeast: true })).toBe("more than 1,000 matching");
    expect(matchCountLabel({ count: 210_384, exact: false })).toBe(
      "≈ 210,384 matching (estimated from a sample of the rows)",
    );
    // a count the search's timeout stopped (its page found): said so, not shown as a number
    expect(matchCountLabel(null)).toBe("matches not counted: counting them took too long");
  });
});
