import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the queue's leases and items.
export default skeletonOf("Loading the review queue…", [
  { header: 0 },
  { text: 3, className: "mb-4" },
  { table: [8, 4] },
]);
