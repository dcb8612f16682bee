// The claim slots of audit items: for each item, the write tools of its rollout's registry and its case spec's
// must-mention keys and forbidden codes — what the annotator was shown, and what extraction accuracy compares the
// item on (lib/stats/extraction-accuracy.ts). The one read of them: the agreement report and the monitors' audit
// series both take an item's slots from here, so the two can never compare one item on different slots.
import type { Db } from "@/lib/auth/activity-log.ts";
import { db } from "@/lib/db/client.ts";
import { rows as rowsOf } from "@/lib/db/rows.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import type { CaseSlots } from "@/lib/stats/extraction-accuracy.ts";

// A (registry, case) pair's slots with the ids of its items, comma-separated.
type SlotRow = {
  items: string;
  write_tools: string[];
  mention_keys: string[];
  forbidden: string[];
};

/**
 * The slots of each of `itemIds`: one indexed lookup per item (its rollout's registry), then the slots of each
 * distinct (registry, case) pair once — a run has a handful of registries and its cases, while a 1% sample of a
 * large run is thousands of items (10,000 items: 470 → ~50 ms). Each pair's slots are sent once, in one row with its
 * items' ids, and the items of a pair share one (read-only) slots object: sent with every item, parsing their arrays
 * was most of the read (10,000 items: 250–300 ms), and a row per item with its pair was still 10,000 rows to parse
 * where a run has a few hundred pairs. An item whose case is missing has its registry's write tools only; a
 * spec field that is not an array counts as empty. `itemIds`: the ids, or a query selecting them.
 */
export async function listCaseSlots(
  itemIds: readonly bigint[] | Prisma.Sql,
  client: Db = db(),
): Promise<Map<bigint, CaseSlots>> {
  if (Array.isArray(itemIds) && itemIds.length === 0) return new Map();
  // the items by id, or by a query of their ids (so the read need not wait for the statement that lists them)
  const which = Array.isArray(itemIds)
    ? Prisma.sql`i.id = any(${[...itemIds]}::bigint[])`
    : Prisma.sql`i.id in (${itemIds as Prisma.Sql})`;
  const rows = await rowsOf<SlotRow>(
    client,
    Prisma.sql`
    with items as materialized (
      select i.id as item_id, ro.registry_id, i.ticket_id
        from audit_items i
        -- "offset 0": a probe of the run's rollouts per item, which the planner would otherwise trade for a scan of
        -- every rollout of the run when the items are a query (a million rollouts for 10,000 items: 63 → 300 ms)
        cross join lateral (
          select ro.registry_id from rollouts ro where ro.run_id = i.run_id and ro.id = i.rollout_id offset 0) ro
       where ${which}),
    pairs as materialized (
      select p.items,
             coalesce((select array_agg(t->>'name' order by ord) from jsonb_array_elements(case when jsonb_typeof(tr.tools) = 'array' then tr.tools else '[]'::jsonb end) with ordinality as x(t, ord)
                        where t->>'kind' = 'write'), '{}') as write_tools,
             coalesce((select array_agg(m->>'key' order by ord) from jsonb_array_elements(case when jsonb_typeof(c.verifier_spec->'must_mention') = 'array' then c.verifier_spec->'must_mention' else '[]'::jsonb end) with ordinality as x(m, ord)),
                      '{}') as mention_keys,
             coalesce((select array_agg(f order by ord) from jsonb_array_elements_text(case when jsonb_typeof(c.verifier_spec->'forbidden') = 'array' then c.verifier_spec->'forbidden' else '[]'::jsonb end) with ordinality as x(f, ord)),
                      '{}') as forbidden
        from (select registry_id, ticket_id, string_agg(item_id::text, ',' order by item_id) as items
                from items group by registry_id, ticket_id) p
        join tool_registries tr on tr.id = p.registry_id
        left join cases c on c.ticket_id = p.ticket_id)
    select items, write_tools, mention_keys, forbidden from pairs`,
  );
  const out = new Map<bigint, CaseSlots>();
  for (const r of rows) {
    const slots: CaseSlots = { writeTools: r.write_tools, mentionKeys: r.mention_keys, forbiddenCodes: r.forbidden };
    for (const id of r.items.split(",")) out.set(BigInt(id), slots);
  }
  return out;
}
