// The fixes behind the agreement page's "after N spec fixes, M rule fixes": the defects, fixed or verified, that
// touch the items whose entries were re-scored. A read of the defect table for the agreement page (the defects
// feature builds on the agreement's causes, so the agreement reads this count itself).
import { db, type Db } from "@/lib/db/client.ts";

/** Fixed or verified defects explaining any of these items, by kind: the agreement page's "after N spec fixes". */
export async function countFixes(
  itemIds: readonly bigint[],
  client: Db = db(),
): Promise<{ spec: number; rule: number }> {
  if (itemIds.length === 0) return { spec: 0, rule: 0 };
  const groups = await client.defect.groupBy({
    by: ["cause"],
    where: { status: { in: ["fixed", "verified"] }, items: { some: { itemId: { in: [...itemIds] } } } },
    _count: { _all: true },
  });
  const n = (c: string) => groups.find((g) => g.cause === c)?._count._all ?? 0;
  return { spec: n("spec_wrong"), rule: n("verifier_rule_wrong") };
}
