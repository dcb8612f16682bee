// The leaderboard's address: parsed with each error naming its parameter, and written back without its defaults.
import { describe, expect, it } from "vitest";
import { leaderboardQueryString, parseLeaderboardQuery } from "@/lib/leaderboard/schema.ts";

describe("parseLeaderboardQuery", () => {
  it("reads a full address and writes it back, defaults left out", () => {
    const r = parseLeaderboardQuery({
      run: "grpo-main",
      from: "100",
      to: "900",
      sort: "mae",
      dir: "desc",
      threshold: "ledger:0.8, 12:0.5",
      a: "ledger",
      b: "12",
      side: "b",
    });
    expect(r).toEqual({
      ok: true,
      query: {
        run: "grpo-main",
        from: 100,
        to: 900,
        sort: "mae",
        dir: "desc",
        threshold: { ledger: 0.8, "12": 0.5 },
        a: "ledger",
        b: "12",
        side: "b",
      },
    });
    if (!r.ok) return;
    expect(parseLeaderboardQuery(Object.fromEntries(new URLSearchParams(leaderboardQueryString(r.query))))).toEqual(r);
    const plain = parseLeaderboardQuery({ run: "r" });
    expect(plain.ok && leaderboardQueryString(plain.query)).toBe("run=r");
  });

  it("names each bad parameter", () => {
    const errors = (input: Record<string, string | string[]>) => {
      const r = parseLeaderboardQuery(input);
      return r.ok ? [] : r.errors;
    };
    expect(errors({})).toEqual(["run: name a run (run=R) or a shadow-audit batch (batch=N)"]);
    expect(errors({ run: "r", a: "x" })).toEqual(['a: must be "ledger" or a reward-function version id']);
    expect(errors({ run: "r", threshold: "ledger:0" })).toEqual([
      'threshold: "ledger:0" is not ROW:T with T in (0, 1] (e.g. ledger:0.8)',
    ]);
    expect(errors({ run: "a\0b" })).toEqual(["run: must not contain a NUL character (%00)"]);
    expect(errors({ run: "r", from: "-1" })).toEqual(["from: must be a step (a whole number)"]);
    expect(errors({ run: "r", side: ["a", "b"] })).toEqual(["side: given more than once"]);
  });
});
