import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the batches and the annotators.
export default skeletonOf("Loading the audit batches…", [
  { header: 1 },
  { table: [6, 5], className: "mb-4" },
  { table: [4, 4] },
]);
