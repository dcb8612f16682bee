import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the new-token form and the tokens table.
export default skeletonOf("Loading the API tokens…", [
  { header: 0 },
  { text: 3, className: "mb-4" },
  { table: [6, 5] },
]);
