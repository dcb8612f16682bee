import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the sample's figures and the batch form.
export default skeletonOf("Loading the new batch…", [
  { header: 0 },
  { stats: 5 },
  { grid: "grid gap-4 lg:grid-cols-2", parts: [{ text: 8 }, { table: [5, 3] }] },
]);
