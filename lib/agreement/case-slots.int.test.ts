import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { listCaseSlots, listPairSlots } from "@/lib/agreement/case-slots.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { db } from "@/lib/db/client.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { variantRollout } from "@/lib/testing/audit-data.ts";
import { makeCase } from "@/lib/testing/verifier-fixtures.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";

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

  it("reads each item's registry from the item (030): set from its rollout whatever a writer passes", async () => {
    const rows = await db().$queryRaw<{ id: bigint; own: number | null; rollout: number }[]>`
      select i.id, i.registry_id as own, ro.registry_id as rollout
        from audit_items i join rollouts ro on ro.run_id = i.run_id and ro.id = i.rollout_id
       where i.id = any(${ids}::bigint[])`;
    expect(rows).toHaveLength(9);
    for (const r of rows) expect(r.own).toBe(r.rollout);
    // a writer cannot set another registry, on insert or later
    const other = (
      await db().$queryRaw<{ id: number }[]>`
      insert into tool_registries (hash, tools) values (${`slots-other-${RUN}`}, '[]'::jsonb) returning id`
    )[0].id;
    await db().$executeRaw`update audit_items set registry_id = ${other} where id = ${ids[0]}`;
    const [{ registry_id }] = await db().$queryRaw<{ registry_id: number }[]>`
      select registry_id from audit_items where id = ${ids[0]}`;
    expect(registry_id).toBe(rows.find((r) => r.id === ids[0])!.rollout);
  });

  it("gives the same slots by (registry, case) pair as by item, and the rollout's for an item stored without one", async () => {
    const byItem = await listCaseSlots(ids, db());
    const pairs = await listPairSlots(Prisma.sql`i.id = any(${ids}::bigint[])`, db());
    const items = await db().auditItem.findMany({
      where: { id: { in: ids } },
      select: { id: true, registryId: true, ticketId: true },
    });
    for (const i of items) expect(pairs(i.registryId!, i.ticketId)).toEqual(byItem.get(i.id));
    expect(pairs(-1, "no such case")).toEqual({ writeTools: [] });
    // an item stored without its registry (the trigger bypassed, as a replica's apply would): read from its rollout
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query("set session_replication_role = replica");
      await c.query("update audit_items set registry_id = null where id = $1", [ids[1].toString()]);
    } finally {
      await c.end();
    }
    try {
      expect((await listCaseSlots([ids[1]], db())).get(ids[1])).toEqual(byItem.get(ids[1]));
    } finally {
      await db().$executeRaw`update audit_items set run_id = run_id where id = ${ids[1]}`;
    }
    const [{ registry_id }] = await db().$queryRaw<{ registry_id: number | null }[]>`
      select registry_id from audit_items where id = ${ids[1]}`;
    expect(registry_id).not.toBeNull();
  });
});
