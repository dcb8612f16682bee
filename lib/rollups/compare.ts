// Compares two sets of step rollups (incremental vs. recomputed): counts must be equal, sums equal within a
// tolerance, because adding and subtracting floats in another order rounds differently (~1e-15 per operation).
import type { StepRollupCounters } from "@/lib/rollups/data.ts";

const SUMS = new Set(["rewardSum", "rewardSumsq", "removedSum", "groupStdSum", "trainedAbsDiffSum"]);

/** Human-readable differences ("step 3 rewardSum: 1.2 vs 1.3"); empty when the rollups agree. */
export function rollupDifferences(
  actual: StepRollupCounters[],
  expected: StepRollupCounters[],
  tolerance = 1e-9,
): string[] {
  const out: string[] = [];
  const exp = new Map(expected.map((s) => [s.step, s]));
  const act = new Map(actual.map((s) => [s.step, s]));
  const close = (a: number, b: number) => Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));
  for (const step of new Set([...exp.keys(), ...act.keys()])) {
    const a = act.get(step);
    const e = exp.get(step);
    // A step whose entries were all superseded away keeps a row of zeros; the recomputation has no row for it.
    if (!e && a && a.rollouts === 0) continue;
    if (!a || !e) {
      out.push(`step ${step}: ${a ? "not in the ledger" : "no rollup row"}`);
      continue;
    }
    for (const key of Object.keys(e) as (keyof StepRollupCounters)[]) {
      if (key === "guardrails") continue;
      const x = a[key] as number;
      const y = e[key] as number;
      if (SUMS.has(key) ? !close(x, y) : x !== y) out.push(`step ${step} ${key}: ${x} vs ${y}`);
    }
    for (const code of new Set([...Object.keys(a.guardrails), ...Object.keys(e.guardrails)])) {
      const ga = a.guardrails[code] ?? { hits: 0, deciding: 0, removedSum: 0 };
      const ge = e.guardrails[code] ?? { hits: 0, deciding: 0, removedSum: 0 };
      if (ga.hits !== ge.hits || ga.deciding !== ge.deciding || !close(ga.removedSum, ge.removedSum)) {
        out.push(`step ${step} ${code}: ${JSON.stringify(ga)} vs ${JSON.stringify(ge)}`);
      }
    }
  }
  return out;
}
