import { describe, expect, it } from "vitest";
import { COLORS, guardrailColor, numTick, pctTick, runStroke } from "@/components/charts/chart-kit.tsx";

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

describe("tick labels", () => {
  const distinct = (xs: string[]) => new Set(xs).size === xs.length;
  it("never label two ticks of an axis alike, however small its range (the trained-reward chart's 0–2%)", () => {
    const shares = [0, 0.005, 0.01, 0.015, 0.02];
    expect(shares.map(pctTick)).toEqual(["0%", "0.5%", "1%", "1.5%", "2%"]);
    const diffs = [0, 0.0025, 0.005, 0.0075, 0.01];
    expect(diffs.map(numTick)).toEqual(["0", "0.0025", "0.005", "0.0075", "0.01"]);
    expect(distinct([0, 0.25, 0.5, 0.75, 1].map(pctTick))).toBe(true);
  });
  it("print float noise away", () => {
    expect(pctTick(0.07 * 3)).toBe("21%");
    expect(numTick(0.1 + 0.2)).toBe("0.3");
    expect(numTick(12)).toBe("12");
  });
});
