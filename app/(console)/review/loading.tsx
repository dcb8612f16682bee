import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page leases the item and reads its rollout (its layout has settled access): the rollout beside the
// annotation form.
export default skeletonOf("Loading the item…", [
  { header: 0 },
  { grid: "grid gap-4 xl:grid-cols-[minmax(0,1fr)_460px]", parts: [{ text: 18 }, { text: 12 }] },
]);
