import { describe, expect, it } from "vitest";
import { bootstrapCI, bootstrapCounts } from "@/lib/stats/intervals.ts";
import { cohensKappa, cohensKappaInterval, kappaFromMatrix } from "@/lib/stats/kappa.ts";
import { binomialPmf, drawBinomial, drawMultinomial, uniform53 } from "@/lib/stats/multinomial.ts";

/** C(n, x) p^x q^(n−x) by Pascal's triangle (exact integers up to n = 50), the reference for binomialPmf. */
function exactPmf(x: number, n: number, p: number): number {
  let row = [1];
  for (let i = 1; i <= n; i++) row = [1, ...row.slice(1).map((v, j) => v + row[j]), 1];
  return row[x] * p ** x * (1 - p) ** (n - x);
}

describe("binomialPmf", () => {
  it("is C(n, x) pˣ qⁿ⁻ˣ to 1e-13 relative, including both ends", () => {
    for (const [n, p] of [
      [1, 0.3],
      [7, 0.5],
      [30, 0.02],
      [50, 0.9],
    ])
      for (let x = 0; x <= n; x++) {
        const want = exactPmf(x, n, p);
        expect(Math.abs(binomialPmf(x, n, p) - want)).toBeLessThanOrEqual(1e-13 * want + 1e-300);
      }
  });

  it("sums to 1 at n = 100,000 and is 0 off the support", () => {
    let s = 0;
    for (let x = 0; x <= 100_000; x++) s += binomialPmf(x, 100_000, 0.37);
    expect(s).toBeCloseTo(1, 12);
    expect(binomialPmf(-1, 10, 0.5)).toBe(0);
    expect(binomialPmf(11, 10, 0.5)).toBe(0);
    expect(binomialPmf(2.5, 10, 0.5)).toBe(0);
    expect(binomialPmf(0, 10, 0)).toBe(1);
    expect(binomialPmf(10, 10, 1)).toBe(1);
  });
});

describe("drawBinomial", () => {
  // Pearson's χ² of 40,000 draws against the pmf, cells merged until each expects ≥ 20; the bound is the 0.999
  // quantile of χ² with that many degrees of freedom (Wilson–Hilferty), so a wrong sampler fails, a right one passes.
  for (const [n, p] of [
    [1, 0.5],
    [12, 0.05],
    [40, 0.5],
    [1000, 0.003],
    [110_000, 0.31],
  ])
    it(`fits Binomial(${n}, ${p})`, () => {
      const draws = 40_000;
      const u = uniform53(n);
      const seen = new Map<number, number>();
      for (let i = 0; i < draws; i++) {
        const x = drawBinomial(u, n, p);
        expect(Number.isInteger(x) && x >= 0 && x <= n).toBe(true);
        seen.set(x, (seen.get(x) ?? 0) + 1);
      }
      const mean = n * p;
      const sd = Math.sqrt(n * p * (1 - p));
      const hi = Math.min(n, Math.ceil(mean + 8 * sd));
      let chi = 0;
      let df = -1;
      let expCell = 0;
      let obsCell = 0;
      for (let x = 0; x <= hi; x++) {
        obsCell += seen.get(x) ?? 0;
        if (x < hi) expCell += draws * binomialPmf(x, n, p);
        else {
          // the last cell: hi and everything above it
          for (let y = x; y <= n; y++) expCell += draws * binomialPmf(y, n, p);
          for (const [y, c] of seen) if (y > x) obsCell += c;
        }
        if (expCell >= 20 || x === hi) {
          chi += (obsCell - expCell) ** 2 / expCell;
          df++;
          expCell = 0;
          obsCell = 0;
        }
      }
      df = Math.max(1, df);
      const bound = df * (1 - 2 / (9 * df) + 3.09 * Math.sqrt(2 / (9 * df))) ** 3;
      expect(chi).toBeLessThan(bound);
    });

  it("gives 0 and n at p = 0 and 1", () => {
    const u = uniform53(1);
    expect(drawBinomial(u, 10, 0)).toBe(0);
    expect(drawBinomial(u, 10, 1)).toBe(10);
    expect(drawBinomial(u, 0, 0.5)).toBe(0);
  });
});

describe("drawMultinomial", () => {
  it("puts every draw in a type, none in an empty one, with the types' shares on average", () => {
    const u = uniform53(5);
    const sizes = [50, 0, 30, 20];
    const out = new Float64Array(4);
    const sum = new Float64Array(4);
    for (let i = 0; i < 4000; i++) {
      drawMultinomial(u, 1000, sizes, out);
      expect(out.reduce((s, c) => s + c, 0)).toBe(1000);
      expect(out[1]).toBe(0);
      out.forEach((c, t) => (sum[t] += c));
    }
    // shares 0.5, 0.3, 0.2 of 1000: sd of a mean of 4000 draws ≈ 0.25, so within 1.5
    expect(Math.abs(sum[0] / 4000 - 500)).toBeLessThan(1.5);
    expect(Math.abs(sum[2] / 4000 - 300)).toBeLessThan(1.5);
    expect(Math.abs(sum[3] / 4000 - 200)).toBeLessThan(1.5);
  });
});

describe("bootstrapCounts", () => {
  // The Wikipedia κ example at four times its size: 80 both yes, 20 / 40 one only, 60 both no (κ = 0.4).
  const cells = [80, 20, 40, 60];
  const pairs = cells.flatMap((c, t) => Array.from({ length: c }, () => [t < 2, t % 2 === 0] as const));
  const matrix = [
    [0, 0],
    [0, 0],
  ];
  const kappaOfCounts = (c: Float64Array) => {
    matrix[0][0] = c[0];
    matrix[0][1] = c[1];
    matrix[1][0] = c[2];
    matrix[1][1] = c[3];
    return kappaFromMatrix(matrix);
  };

  it("is bootstrapCI over the items in distribution: bounds within the resampling's noise", () => {
    const byItems = bootstrapCI(pairs, (s) => cohensKappa(s), { seed: 3, iterations: 8000 })!;
    const byCounts = bootstrapCounts(cells, { estimate: 0.4, resample: kappaOfCounts }, { seed: 3, iterations: 8000 })!;
    // κ's se here ≈ 0.065; a 2.5% quantile of 8,000 resamples has a Monte Carlo se ≈ 0.0035 — 0.015 is 3 of each
    expect(byCounts.estimate).toBe(0.4);
    expect(Math.abs(byCounts.lower - byItems.lower)).toBeLessThan(0.015);
    expect(Math.abs(byCounts.upper - byItems.upper)).toBeLessThan(0.015);
    expect(byCounts.upper - byCounts.lower).toBeGreaterThan(0.2);
    // a resampling of the wrong size (twice the items) gives a narrower interval: the test can tell
    const wrong = bootstrapCounts(
      cells.map((c) => 2 * c),
      { estimate: 0.4, resample: kappaOfCounts },
      { seed: 3, iterations: 8000 },
    )!;
    expect(Math.abs(wrong.lower - byItems.lower)).toBeGreaterThan(0.015);
  });

  it("is what cohensKappaInterval gives, the same for a seed, and null when κ is undefined", () => {
    const a = cohensKappaInterval(pairs, { seed: 9, iterations: 500 })!;
    expect(a).toEqual(cohensKappaInterval(pairs, { seed: 9, iterations: 500 }));
    expect(a.lower).toBeLessThan(0.4);
    expect(a.upper).toBeGreaterThan(0.4);
    expect(bootstrapCounts([10, 0, 0, 0], { estimate: null, resample: kappaOfCounts })).toBeNull();
    expect(bootstrapCounts([], { estimate: 1, resample: () => 1 })).toBeNull();
    expect(() => bootstrapCounts([1.5], { estimate: 1, resample: () => 1 })).toThrow(RangeError);
  });

  it("hands the statistic one count vector per resample, of n items in the types that have any", () => {
    const sizes = [40_000, 0, 20_000, 30_000];
    const seen: number[][] = [];
    bootstrapCounts(
      sizes,
      { estimate: 0.3, resample: (c) => (seen.push([...c]), kappaOfCounts(c)) },
      { iterations: 300 },
    );
    expect(seen).toHaveLength(300);
    for (const c of seen) {
      expect(c.reduce((a, b) => a + b, 0)).toBe(90_000);
      expect(c[1]).toBe(0);
    }
    // the first type's share varies as a binomial's: sd √(90,000 · 4/9 · 5/9) ≈ 149, not 0 and not n
    const first = seen.map((c) => c[0]);
    const mean = first.reduce((a, b) => a + b, 0) / first.length;
    const sd = Math.sqrt(first.reduce((a, b) => a + (b - mean) ** 2, 0) / (first.length - 1));
    expect(Math.abs(mean - 40_000)).toBeLessThan(30);
    expect(sd).toBeGreaterThan(120);
    expect(sd).toBeLessThan(180);
  });
});
