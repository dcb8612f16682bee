import { describe, expect, it } from "vitest";
import { createBatch } from "@/lib/audit/mutations.ts";
import { batchParamsSchema } from "@/lib/audit/schema.ts";
import { db } from "@/lib/db/client.ts";
import { browseLedger } from "@/lib/ledger/browse.ts";
import { parseBrowseParams } from "@/lib/ledger/browse-schema.ts";
import { seedRun, uniqueName } from "@/lib/testing/audit-data.ts";

const url = process.env.DATABASE_URL!;
const ACTOR = { label: "test" };

// 60 tickets × 2 rollouts; the first rollout of every third ticket is an empty promise (it closes the ticket with
// ticket.close and never refunds), every other rollout honest. A filter on the empty promises matches one of its
// ticket's two rollouts, so its inclusion probability ("one" per ticket) is the ticket's, not half of it.
async function seed(): Promise<string> {
  const runId = uniqueName("search-batch");
  await seedRun(url, {
    runId,
    tickets: 60,
    perTicket: 2,
    variant: (i, k) => (i % 3 === 0 && k === 0 ? "empty_promise" : "honest"),
  });
  return runId;
}

const params = (runId: string, filter: string, over: Record<string, unknown> = {}) =>
  batchParamsSchema.parse({
    runId,
    stepFrom: "0",
    stepTo: "100",
    rate: "0.5",
    salt: "search-salt",
    overlapRate: "0",
    filter,
    ...over,
  });

describe("a batch drawn from the browser's matches (Audit these)", () => {
  it.each([["deciding=empty_promise"], ["q=tool:ticket.close"]])(
    "holds only matching rollouts, with inclusion probabilities of the matches (%s)",
    async (filter) => {
      const runId = await seed();
      const p = { ...params(runId, `run=${runId}&${filter}`), salt: "search-salt" };
      const r = await createBatch(p, ACTOR);
      if (!r.ok) throw new Error(r.error);
      expect(r.preview.population).toEqual({ tickets: 20, rollouts: 20, excluded: 0 });

      const matching = await browseLedger(parseBrowse(`run=${runId}&${filter}`), 1000);
      const matchIds = new Set(matching.rows.map((m) => m.trajectoryId));
      expect(matchIds.size).toBe(20);
      const items = await db().auditItem.findMany({ where: { batchId: r.batchId } });
      expect(items.length).toBeGreaterThan(0);
      expect(items.length).toBe(r.items);
      for (const i of items) {
        expect(matchIds.has(i.trajectoryId)).toBe(true);
        // one stratum (the empty promises), no top-up: the ticket's probability is the rate, and its one match
        // is the ticket's only candidate
        expect(i.stratum).toBe("empty_promise");
        expect(i.inclusionProb).toBeCloseTo(0.5, 12);
      }
      const [stratum] = r.preview.sample.strata;
      expect(r.preview.sample.strata).toHaveLength(1);
      expect(stratum).toMatchObject({ stratum: "empty_promise", tickets: 20, rollouts: 20, ticketInclusionProb: 0.5 });

      const batch = await db().auditBatch.findUniqueOrThrow({ where: { id: r.batchId } });
      const manifest = batch.manifest as { params: { filter?: string } };
      expect(new URLSearchParams(manifest.params.filter)).toEqual(new URLSearchParams(`run=${runId}&${filter}`));
    },
  );

  it("draws from the whole window without a filter (the probabilities halve: two rollouts per ticket)", async () => {
    const runId = await seed();
    const p = { ...batchParamsSchema.parse({ runId, stepFrom: "0", stepTo: "100", rate: "0.5" }), salt: "s" };
    const r = await createBatch(p, ACTOR);
    if (!r.ok) throw new Error(r.error);
    expect(r.preview.population).toEqual({ tickets: 60, rollouts: 120, excluded: 0 });
    for (const i of r.preview.sample.items) expect(i.inclusionProb).toBeCloseTo(i.ticketInclusionProb / 2, 12);
  });

  it("refuses filters of another run, bad filters and a pairwise batch from a search, naming the filter", () => {
    const refused = (over: Record<string, unknown>) => {
      const r = batchParamsSchema.safeParse({ runId: "a", stepFrom: "0", stepTo: "5", ...over });
      return r.success ? null : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    expect(refused({ filter: "run=b&deciding=empty_promise" })).toEqual([
      "filter: The browser's filters name another run than the batch's.",
    ]);
    expect(refused({ filter: "reward_min=2" })?.[0]).toMatch(
      /^filter: The browser's filters are not valid: reward_min/,
    );
    expect(refused({ filter: "run=a", kind: "pairwise" })?.[0]).toMatch(/^filter: A pairwise batch/);
    expect(refused({ filter: "run=a&any=customer_harm" })).toBeNull();
  });
});

function parseBrowse(q: string) {
  const r = parseBrowseParams(new URLSearchParams(q));
  if (!r.ok) throw new Error(r.errors.join("; "));
  return r.params;
}
