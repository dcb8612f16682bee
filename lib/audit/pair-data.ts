// Reads of a pairwise batch before it exists: the sample that creating it would draw (lib/audit/pair-sampler.ts).
import { loadPopulation, type PopulationEntry } from "@/lib/audit/data.ts";
import { DEFAULT_DELTA, DEFAULT_NEAR_TIE_RATE, samplePairs, type PairSampleResult } from "@/lib/audit/pair-sampler.ts";
import type { ResolvedBatchParams } from "@/lib/audit/schema.ts";
import { db, type Db } from "@/lib/db/client.ts";

export type PairBatchPreview = {
  population: { groups: number; tickets: number; rollouts: number; excluded: number };
  sample: PairSampleResult<PopulationEntry>;
};

/** The pairs that creating the batch would draw (deterministic from the salt, so preview and create agree). */
export async function previewPairBatch(p: ResolvedBatchParams, client: Db = db()): Promise<PairBatchPreview> {
  const pop = await loadPopulation(p.runId, p.stepFrom, p.stepTo, client);
  const sample = samplePairs(pop.rows, {
    rate: p.rate,
    salt: p.salt,
    delta: p.delta ?? DEFAULT_DELTA,
    nearTieRate: p.nearTieRate ?? DEFAULT_NEAR_TIE_RATE,
    minPerStratum: p.minPerStratum ?? null,
    overlapRate: p.overlapRate,
  });
  return { population: { ...sample.population, excluded: pop.excluded }, sample };
}
