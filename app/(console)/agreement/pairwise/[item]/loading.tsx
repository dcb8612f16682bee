import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads both rollouts, their ledger entries and the judgements (its layout has settled access and
// existence): the two rollouts side by side, then the judgements.
export default skeletonOf("Loading the pair…", [
  { header: 0 },
  { grid: "grid gap-4 lg:grid-cols-2 mb-4", parts: [{ text: 14 }, { text: 14 }] },
  { table: [4, 6] },
]);
