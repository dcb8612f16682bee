// A match set's rollouts in a view's step range (setInSteps): the set's own literal without a range, else the ids
// whose step lies in it, ends included, either end open.
import { describe, expect, it } from "vitest";
import { setInSteps } from "@/lib/search/match-set-data.ts";

const set = { ids: "{10,11,12,13,14}", steps: Int32Array.from([0, 3, 1, 3, 7]) };
const empty = { ids: "{}", steps: new Int32Array() };

describe("setInSteps", () => {
  it("keeps the set's rollouts whose step is in the range, ends included", () => {
    expect(setInSteps(set)).toBe("{10,11,12,13,14}");
    expect(setInSteps(set, 1, 3)).toBe("{11,12,13}");
    expect(setInSteps(set, 3)).toBe("{11,13,14}");
    expect(setInSteps(set, undefined, 0)).toBe("{10}");
    expect(setInSteps(set, 4, 6)).toBe("{}");
    expect(setInSteps(empty, 1, 3)).toBe("{}");
  });
});
