import { describe, expect, it } from "vitest";
import { shareTable } from "@/lib/saved-searches/table.ts";

describe("shareTable", () => {
  it("is each step's matches over its rollouts, null where a step has none", () => {
    const t = shareTable([
      { step: 3, rollouts: 8, matches: 2 },
      { step: 4, rollouts: 5, matches: 0 },
      { step: 5, rollouts: 0, matches: 0 },
    ]);
    expect(t.rows).toEqual([
      { step: 3, rollouts: 8, matches: 2, share: 0.25 },
      { step: 4, rollouts: 5, matches: 0, share: 0 },
      { step: 5, rollouts: 0, matches: 0, share: null },
    ]);
    expect(t.columns.map((c) => c.format)).toEqual(["count", "count", "percent"]);
  });

  it("is empty for no steps", () => {
    expect(shareTable([]).rows).toEqual([]);
  });
});
