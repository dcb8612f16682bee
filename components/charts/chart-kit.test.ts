import { describe, expect, it } from "vitest";
import { COLORS, guardrailColor, runStroke } from "@/components/charts/chart-kit.tsx";

describe("runStroke", () => {
  it("draws the second run of a comparison in a colour of its own for every series colour the charts use", () => {
    const colours = [
      ...Object.values(COLORS),
      guardrailColor("missing_evidence"),
      guardrailColor("unauthorized_write"),
    ];
    for (const c of colours) {
      expect(runStroke(c, 0)).toBe(c);
      expect(runStroke(c, 1)).not.toBe(c);
      // and not the first-run colour of another series of the same chart
      expect(colours).not.toContain(runStroke(c, 1));
    }
    expect(new Set(colours.map((c) => runStroke(c, 1))).size).toBe(colours.length);
  });
});
