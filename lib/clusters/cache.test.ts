import { describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { cachedReport } from "@/lib/clusters/cache.ts";
import type { ClusterReport } from "@/lib/clusters/report.ts";

/** A stand-in client whose only query is the fingerprint. */
function fakeClient(fingerprint: { f: string | null }) {
  return { $queryRaw: async () => [{ f: fingerprint.f }] } as unknown as PrismaClient;
}
const report = (n: number) => ({ population: n }) as unknown as ClusterReport;
const w = { runId: "r", threshold: 0.5 };

describe("cachedReport", () => {
  it("reuses a report while the rollups' fingerprint and the window are unchanged", async () => {
    const fp = { f: "3/100/90/1.5/0.2/10/5/2000" };
    const client = fakeClient(fp);
    let computed = 0;
    const compute = async () => report(++computed);
    expect((await cachedReport(client, w, compute, 0)).population).toBe(1);
    expect((await cachedReport(client, w, compute, 1000)).population).toBe(1);
    expect((await cachedReport(client, { ...w, threshold: 0.6 }, compute, 1000)).population).toBe(2);
    fp.f = "3/104/94/1.6/0.2/10/5/2000"; // an ingest or a re-score changed the rollups
    expect((await cachedReport(client, w, compute, 2000)).population).toBe(3);
    expect((await cachedReport(client, w, compute, 2000 + 6 * 60_000)).population).toBe(4); // expired
  });

  it("does not cache a run without rollups, nor a failed computation, nor across database clients", async () => {
    let computed = 0;
    const compute = async () => report(++computed);
    const bare = fakeClient({ f: null });
    await cachedReport(bare, w, compute, 0);
    await cachedReport(bare, w, compute, 0);
    expect(computed).toBe(2);
    const client = fakeClient({ f: "1/1/1/1/0/0/0/0" });
    await expect(cachedReport(client, w, () => Promise.reject(new Error("db gone")), 0)).rejects.toThrow("db gone");
    expect((await cachedReport(client, w, compute, 0)).population).toBe(3);
    expect((await cachedReport(fakeClient({ f: "1/1/1/1/0/0/0/0" }), w, compute, 0)).population).toBe(4);
  });
});
