import { readDb } from "@/lib/db/read-client.ts";

/** The values the browser's run and category selectors offer (both small tables). */
export async function browseFacets(): Promise<{ runs: string[]; categories: string[] }> {
  const [runs, cats] = await Promise.all([
    readDb().run.findMany({ select: { id: true }, orderBy: { createdAt: "desc" } }),
    readDb().case.findMany({ select: { category: true }, distinct: ["category"], orderBy: { category: "asc" } }),
  ]);
  return { runs: runs.map((r) => r.id), categories: cats.map((c) => c.category) };
}
