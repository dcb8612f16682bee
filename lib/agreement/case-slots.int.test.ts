import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { listCaseSlots } from "@/lib/agreement/case-slots.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { db } from "@/lib/db/client.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { bulkPool } from "@/lib/ingest/pool.ts";
import { variantRollout } from "@/lib/testing/audit-data.ts";
import { makeCase } from "@/lib/testing/verifier-fixtures.ts";

// The slots are sent once per (registry, case) pair: every item must still get its own case's slots, in its
// registry's order, and nothing of another pair's.
const url = process.env.DATABASE_URL!;
const RUN = `slots-${randomBytes(3).toString("hex")}`;
const CASES = {
  a: {},
  b: { must_mention: [{ key: "reship_eta" }, { key: "refund_amount", value: "$order.paid_amount" }], forbidden: [] },
  c: { must_mention: [], forbidden: ["blame_customer", "promise_unapproved_discount"] },
} as const;
const PER_CASE = { a: 3, b: 2, c: 4 } as const;

describe("listCaseSlots", () => {
  let ids: bigint[];

  beforeAll(async () => {
    const values: unknown[] = [];
    for (const kind of ["a", "b", "c"] as const) {
      const ticketId = `${RUN}/${kind}`;
      values.push(makeCase(CASES[kind], undefined, ticketId));
      for (let k = 0; k < PER_CASE[kind]; k++)
        values.push(
          variantRollout("honest", { runId: RUN, ticketId, trajectoryId: `${ticketId}/k${k}`, step: 1, sample: k }),
        );
    }
    const summary = await ingestValues(values, { pool: bulkPool(url) });
    if (!summary.ok || summary.rejected > 0) throw new Error(JSON.stringify(summary).slice(0, 500));
    const b = await createBatch(
      { runId: RUN, stepFrom: 0, stepTo: 10, rate: 1, salt: "s", pick: "all", overlapRate: 0, tolerance: 0.1 },
      { label: "test" },
    );
    if (!b.ok) throw new Error(b.error);
    ids = (await db().auditItem.findMany({ where: { batchId: b.batchId }, select: { id: true } })).map((i) => i.id);
  });

  it("gives each item its own case's keys and codes and its registry's write tools, one object per pair", async () => {
    expect(ids).toHaveLength(9);
    const slots = await listCaseSlots(ids, db());
    expect([...slots.keys()].sort()).toEqual([...ids].sort());
    // what each item should get, read independently from the stored case and the rollout's registry
    const items = await db().auditItem.findMany({ where: { id: { in: ids } }, select: { id: true, ticketId: true } });
    const byTicket = new Map<string, object>();
    for (const item of items) {
      const kase = await db().case.findUniqueOrThrow({ where: { ticketId: item.ticketId } });
      const spec = kase.verifierSpec as { must_mention: { key: string }[]; forbidden: string[] };
      const s = slots.get(item.id)!;
      expect(s.mentionKeys).toEqual(spec.must_mention.map((m) => m.key));
      expect(s.forbiddenCodes).toEqual(spec.forbidden);
      const [{ tools }] = await db().$queryRaw<{ tools: { name: string; kind: string }[] }[]>`
        select tr.tools from audit_items i join rollouts ro on ro.run_id = i.run_id and ro.id = i.rollout_id
          join tool_registries tr on tr.id = ro.registry_id where i.id = ${item.id}`;
      expect(s.writeTools).toEqual(tools.filter((t) => t.kind === "write").map((t) => t.name));
      expect(s.writeTools).toContain("finance.issue_refund");
      const seen = byTicket.get(item.ticketId);
      if (seen) expect(s).toBe(seen);
      else byTicket.set(item.ticketId, s);
    }
    expect(byTicket.size).toBe(3);
    expect(slots.get(items.find((i) => i.ticketId.endsWith("/b"))!.id)!.mentionKeys).toEqual([
      "reship_eta",
      "refund_amount",
    ]);
    // an item asked for alone gets what it gets among the others
    const one = items.find((i) => i.ticketId.endsWith("/c"))!.id;
    expect((await listCaseSlots([one], db())).get(one)).toEqual(slots.get(one));
  });
});
