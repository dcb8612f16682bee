import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the workbench reads the case, its versions and the runs holding its rollouts (its layout has settled access
// and existence): the spec editor beside the case, then the versions.
export default skeletonOf("Loading the case…", [
  { header: 1 },
  { grid: "grid gap-4 xl:grid-cols-[3fr_2fr] mb-4", parts: [{ text: 16 }, { text: 10 }] },
  { table: [5, 5] },
]);
