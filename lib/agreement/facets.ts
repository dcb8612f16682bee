import type { Db } from "@/lib/db/client.ts";
import { readDb } from "@/lib/db/read-client.ts";

/** Options of the agreement filters: runs and batches with reviews, categories, annotators who reviewed. */
export async function agreementFacets() {
  const [batches, categories, annotators] = await Promise.all([
    readDb().auditBatch.findMany({
      // ticket batches: a pairwise batch has no ticket reviews; its report is /agreement/pairwise
      where: { kind: "tickets" },
      select: { id: true, name: true, runId: true },
      orderBy: { id: "desc" },
    }),
    readDb().case.findMany({ select: { category: true }, distinct: ["category"], orderBy: { category: "asc" } }),
    readDb().user.findMany({ where: { reviews: { some: {} } }, select: { email: true }, orderBy: { email: "asc" } }),
  ]);
  return {
    runs: [...new Set(batches.map((b) => b.runId))].sort(),
    batches: batches.map((b) => ({ id: b.id, name: b.name })),
    categories: categories.map((c) => c.category),
    annotators: annotators.map((a) => a.email),
  };
}

/**
 * Pairwise batches (of a run, or all), newest first: the agreement page links each one's report
 * (/agreement/pairwise), which ticket reviews do not feed.
 */
export async function listPairwiseBatches(
  runId?: string,
  client: Db = readDb(),
): Promise<{ id: number; name: string; runId: string }[]> {
  return client.auditBatch.findMany({
    where: { kind: "pairwise", ...(runId ? { runId } : {}) },
    orderBy: { id: "desc" },
    take: 20,
    select: { id: true, name: true, runId: true },
  });
}
