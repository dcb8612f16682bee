import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads the function's versions and runs (its layout has settled access and existence): the editor,
// the run panel and the versions.
export default skeletonOf("Loading the reward function…", [
  { header: 0 },
  { text: 14, className: "mb-4" },
  { text: 5, className: "mb-4" },
  { table: [5, 4] },
]);
