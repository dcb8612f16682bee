import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page leases the pair and reads both rollouts (its layout has settled access): the case, the two
// rollouts side by side and the form.
export default skeletonOf("Loading the pair…", [
  { header: 0 },
  { text: 4, className: "mb-4" },
  { grid: "grid gap-4 lg:grid-cols-2", parts: [{ text: 14 }, { text: 14 }] },
]);
