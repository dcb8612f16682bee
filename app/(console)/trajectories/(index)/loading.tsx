import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the filters and the trajectories table.
export default skeletonOf("Loading the trajectories…", [
  { header: 0 },
  { text: 3, className: "mb-4" },
  { table: [12, 6] },
]);
