// The claim slots of audit items: for each item, the write tools of its rollout's registry and its case spec's
// must-mention keys and forbidden codes — what the annotator was shown, and what extraction accuracy compares the
// item on (lib/stats/extraction-accuracy.ts). The one read of them: the agreement report and the monitors' audit
// series both take an item's slots from here, so the two can never compare one item on different slots.
import { db, type Db } from "@/lib/db/client.ts";
import { rows as rowsOf } from "@/lib/db/rows.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import type { CaseSlots } from "@/lib/stats/extraction-accuracy.ts";

// A (registry, case) pair's slots, with the ids of its items (comma-separated) when they were asked for.
type SlotRow = {
  registry_id: number;
  ticket_id: string;
  items: string | null;
  write_tools: string[];
  mention_keys: string[];
  forbidden: string[];
};

/**
 * The audit items `i` where `which` holds, with their registry: their own (030) or, for a row stored without one (the
 * trigger bypassed, as a replica's apply does), their rollout's. The rollouts are read in a statement of their own,
 * only for such items: on Citus the audit tables stay on the coordinator and rollouts is distributed, and Citus
 * cannot plan a subquery on one correlated with the other.
 */
const itemsWithRegistry = (which: Prisma.Sql) => Prisma.sql`
    its as materialized (
      select i.id as item_id, i.registry_id, i.run_id, i.rollout_id, i.ticket_id from audit_items i where ${which}),
    missing as materialized (
      select m.item_id, ro.registry_id from its m join rollouts ro on ro.run_id = m.run_id and ro.id = m.rollout_id
       where m.registry_id is null),
    items as materialized (
      select i.item_id, coalesce(i.registry_id, m.registry_id) as registry_id, i.ticket_id
        from its i left join missing m on m.item_id = i.item_id)`;

/**
 * The slots of each distinct (registry, case) pair of the audit items `i` where `which` holds — a run has a handful
 * of registries and its cases, while a 1% sample of a large run is thousands of items — with, when `withIds`, the
 * ids of each pair's items. Each pair's slots are sent once: sent with every item, parsing their arrays was most of
 * the read (10,000 items: 250–300 ms). A missing case gives its registry's write tools only; a spec field that is not
 * an array counts as empty.
 */
async function pairRows(which: Prisma.Sql, withIds: boolean, client: Db): Promise<SlotRow[]> {
  return rowsOf<SlotRow>(
    client,
    Prisma.sql`
    with ${itemsWithRegistry(which)},
    pairs as materialized (
      select p.registry_id, p.ticket_id, p.items,
             coalesce((select array_agg(t->>'name' order by ord) from jsonb_array_elements(case when jsonb_typeof(tr.tools) = 'array' then tr.tools else '[]'::jsonb end) with ordinality as x(t, ord)
                        where t->>'kind' = 'write'), '{}') as write_tools,
             coalesce((select array_agg(m->>'key' order by ord) from jsonb_array_elements(case when jsonb_typeof(c.verifier_spec->'must_mention') = 'array' then c.verifier_spec->'must_mention' else '[]'::jsonb end) with ordinality as x(m, ord)),
                      '{}') as mention_keys,
             coalesce((select array_agg(f order by ord) from jsonb_array_elements_text(case when jsonb_typeof(c.verifier_spec->'forbidden') = 'array' then c.verifier_spec->'forbidden' else '[]'::jsonb end) with ordinality as x(f, ord)),
                      '{}') as forbidden
        from (select registry_id, ticket_id,
                     ${withIds ? Prisma.sql`string_agg(item_id::text, ',' order by item_id)` : Prisma.sql`null::text`} as items
                from items group by registry_id, ticket_id) p
        join tool_registries tr on tr.id = p.registry_id
        left join cases c on c.ticket_id = p.ticket_id)
    select registry_id, ticket_id, items, write_tools, mention_keys, forbidden from pairs`,
  );
}

const slotsOf = (r: SlotRow): CaseSlots => ({
  writeTools: r.write_tools,
  mentionKeys: r.mention_keys,
  forbiddenCodes: r.forbidden,
});

/**
 * The slots of each of `itemIds` (the ids, or a query selecting them); the items of a pair share one (read-only)
 * slots object.
 */
export async function listCaseSlots(
  itemIds: readonly bigint[] | Prisma.Sql,
  client: Db = db(),
): Promise<Map<bigint, CaseSlots>> {
  if (Array.isArray(itemIds) && itemIds.length === 0) return new Map();
  const which = Array.isArray(itemIds)
    ? Prisma.sql`i.id = any(${[...itemIds]}::bigint[])`
    : Prisma.sql`i.id in (${itemIds as Prisma.Sql})`;
  const out = new Map<bigint, CaseSlots>();
  for (const r of await pairRows(which, true, client)) {
    const slots = slotsOf(r);
    for (const id of r.items!.split(",")) out.set(BigInt(id), slots);
  }
  return out;
}

/** The slots of an item by its registry and case; a pair not read gives empty slots. */
export type PairSlots = (registryId: number, ticketId: string) => CaseSlots;

/**
 * The slots of every (registry, case) pair among the audit items `i` where `which` holds, without the items' ids:
 * for a reader that has each item's registry and case from its own statement (the agreement report's load), so the
 * two can run at the same time and this one sends a few hundred rows whatever the number of items.
 */
export async function listPairSlots(which: Prisma.Sql, client: Db = db()): Promise<PairSlots> {
  const byPair = new Map<string, CaseSlots>();
  for (const r of await pairRows(which, false, client)) byPair.set(`${r.registry_id}\u0000${r.ticket_id}`, slotsOf(r));
  return (registryId, ticketId) => byPair.get(`${registryId}\u0000${ticketId}`) ?? { writeTools: [] };
}
