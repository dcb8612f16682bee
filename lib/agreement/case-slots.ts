// The claim slots of audit items: for each item, the write tools of its rollout's registry and its case spec's
// must-mention keys and forbidden codes — what the annotator was shown, and what extraction accuracy compares the
// item on (lib/stats/extraction-accuracy.ts). The one read of them: the agreement report and the monitors' audit
// series both take an item's slots from here, so the two can never compare one item on different slots.
import type { Db } from "@/lib/auth/activity-log.ts";
import { db } from "@/lib/db/client.ts";
import { rows as rowsOf } from "@/lib/db/rows.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import type { CaseSlots } from "@/lib/stats/extraction-accuracy.ts";

// An item's row names its (registry, case) pair by `pair`; only the pair's first item carries its slots (null after).
type SlotRow = {
  item_id: bigint;
  pair: number;
  write_tools: string[] | null;
  mention_keys: string[] | null;
  forbidden: string[] | null;
};

/**
 * The slots of each of `itemIds`: one indexed lookup per item (its rollout's registry), then the slots of each
 * distinct (registry, case) pair once — a run has a handful of registries and its cases, while a 1% sample of a
 * large run is thousands of items (10,000 items: 470 → ~50 ms). Each pair's slots are sent once, with its first
 * item, and the items of a pair share one (read-only) slots object: sent with every item, parsing their arrays was
 * most of the read (10,000 items: 250–300 ms). An item whose case is missing has its registry's write tools only; a
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
      select row_number() over ()::int as pair, p.registry_id, p.ticket_id,
             coalesce((select array_agg(t->>'name' order by ord) from jsonb_array_elements(case when jsonb_typeof(tr.tools) = 'array' then tr.tools else '[]'::jsonb end) with ordinality as x(t, ord)
                        where t->>'kind' = 'write'), '{}') as write_tools,
             coalesce((select array_agg(m->>'key' order by ord) from jsonb_array_elements(case when jsonb_typeof(c.verifier_spec->'must_mention') = 'array' then c.verifier_spec->'must_mention' else '[]'::jsonb end) with ordinality as x(m, ord)),
                      '{}') as mention_keys,
             coalesce((select array_agg(f order by ord) from jsonb_array_elements_text(case when jsonb_typeof(c.verifier_spec->'forbidden') = 'array' then c.verifier_spec->'forbidden' else '[]'::jsonb end) with ordinality as x(f, ord)),
                      '{}') as forbidden
        from (select distinct registry_id, ticket_id from items) p
        join tool_registries tr on tr.id = p.registry_id
        left join cases c on c.ticket_id = p.ticket_id)
    select item_id, pair, case when first then write_tools end as write_tools,
           case when first then mention_keys end as mention_keys, case when first then forbidden end as forbidden
      from (select i.item_id, p.pair, p.write_tools, p.mention_keys, p.forbidden,
                   row_number() over (partition by p.pair order by i.item_id) = 1 as first
              from items i join pairs p on p.registry_id = i.registry_id and p.ticket_id = i.ticket_id) x
     order by pair, item_id`,
  );
  const byPair = new Map<number, CaseSlots>();
  const out = new Map<bigint, CaseSlots>();
  for (const r of rows) {
    let slots = byPair.get(r.pair);
    if (!slots) {
      slots = { writeTools: r.write_tools!, mentionKeys: r.mention_keys!, forbiddenCodes: r.forbidden! };
      byPair.set(r.pair, slots);
    }
    out.set(r.item_id, slots);
  }
  return out;
}
