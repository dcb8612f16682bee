import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: its cards and the users table.
export default skeletonOf("Loading the administration…", [
  { header: 0 },
  { grid: "mb-4 grid gap-4 lg:grid-cols-3", parts: [{ text: 3 }, { text: 3 }, { text: 3 }] },
  { table: [6, 4] },
]);
