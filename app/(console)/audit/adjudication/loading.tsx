import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the disputes and the case being settled.
export default skeletonOf("Loading the disputes…", [
  { header: 0 },
  { table: [6, 5], className: "mb-4" },
  { grid: "grid gap-4 lg:grid-cols-2", parts: [{ text: 10 }, { text: 10 }] },
]);
