// A match set's rollouts in a view's step range (setInSteps): the set's own literal without a range, else the ids
// whose step lies in it, ends included, either end open — one slice of the literal, which keeps them by step.
import { describe, expect, it } from "vitest";
import { matchSetFrom, setInSteps } from "@/lib/search/match-set-data.ts";

const rows = (pairs: [number, number][]) => pairs.map(([id, step]) => ({ rollout_id: BigInt(id), step }));
/** The ids of a literal, in ascending order. */
const idsOf = (literal: string) =>
  literal === "{}"
    ? []
    : literal
        .slice(1, -1)
        .split(",")
        .map(Number)
        .sort((a, b) => a - b);

const set = matchSetFrom(
  rows([
    [10, 0],
    [11, 3],
    [12, 1],
    [13, 3],
    [14, 7],
  ]),
);
const empty = matchSetFrom([]);

describe("setInSteps", () => {
  it("keeps the set's rollouts whose step is in the range, ends included", () => {
    expect(idsOf(setInSteps(set))).toEqual([10, 11, 12, 13, 14]);
    expect(idsOf(setInSteps(set, 1, 3))).toEqual([11, 12, 13]);
    expect(idsOf(setInSteps(set, 3))).toEqual([11, 13, 14]);
    expect(idsOf(setInSteps(set, undefined, 0))).toEqual([10]);
    expect(setInSteps(set, 4, 6)).toBe("{}");
    expect(setInSteps(set, 8)).toBe("{}");
    expect(setInSteps(empty)).toBe("{}");
    expect(setInSteps(empty, 1, 3)).toBe("{}");
  });

  it("gives the ids a filter by step gives, for ids of every length and ranges anywhere", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const drawn = Array.from({ length: 500 }, (_, i): [number, number] => [
      i * 97 + (next() % 10 ** (1 + (i % 9))),
      next() % 60,
    ]);
    const many = matchSetFrom(rows(drawn));
    for (let k = 0; k < 200; k++) {
      const a = (next() % 70) - 5;
      const b = a + (next() % 20);
      const want = drawn
        .filter(([, s]) => s >= a && s <= b)
        .map(([id]) => id)
        .sort((x, y) => x - y);
      expect(idsOf(setInSteps(many, a, b)), `${a}..${b}`).toEqual(want);
    }
  });
});
