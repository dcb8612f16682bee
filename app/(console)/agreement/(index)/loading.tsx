import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the agreement figures and its tables.
export default skeletonOf("Loading the agreement figures…", [
  { header: 0 },
  { stats: 5 },
  {
    grid: "grid gap-4 lg:grid-cols-2",
    parts: [{ table: [5, 4] }, { table: [5, 4] }, { table: [5, 4] }, { table: [5, 4] }],
  },
]);
