import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the figures, the breakdowns and the inversions.
export default skeletonOf("Loading the pairwise agreement…", [
  { header: 0 },
  { stats: 5 },
  { grid: "grid gap-4 lg:grid-cols-2", parts: [{ table: [5, 4] }, { table: [5, 4] }] },
  { table: [6, 5], className: "mt-4" },
]);
