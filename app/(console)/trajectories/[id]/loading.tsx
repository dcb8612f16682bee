import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads the entry, its rollout and case (its layout has settled access and existence): the reward's
// figures, the sub-scores and the steps beside the reasons.
export default skeletonOf("Loading the trajectory…", [
  { header: 0 },
  { stats: 4 },
  { grid: "grid gap-4 lg:grid-cols-2", parts: [{ text: 6 }, { text: 6 }] },
  { text: 12, className: "mt-4" },
]);
