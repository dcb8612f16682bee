import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the group's figures and its members.
export default skeletonOf("Loading the group…", [
  { header: 0 },
  { stats: 4 },
  { table: [3, 4], className: "mb-4" },
  { table: [8, 5] },
]);
