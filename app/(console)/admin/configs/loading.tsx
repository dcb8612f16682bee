import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the configurations table and its forms.
export default skeletonOf("Loading the verifier configurations…", [
  { header: 0 },
  { table: [5, 4], className: "mb-4" },
  { grid: "grid gap-4 lg:grid-cols-2", parts: [{ text: 6 }, { text: 6 }] },
]);
