// The pair's page streams behind loading.tsx: its role and whether the item is a judged pair are settled before
// anything is sent (lib/server/subject-layout.ts).
import { itemRef } from "@/lib/audit/schema.ts";
import { pairCaseExists } from "@/lib/pairwise/report-loaders.ts";
import { subjectLayout } from "@/lib/server/subject-layout.ts";

export default subjectLayout("ledger.read", "item", async (item) => {
  const ref = itemRef.safeParse({ itemId: item });
  return ref.success && (await pairCaseExists(ref.data.itemId));
});
