import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads the function's versions and runs (its layout has settled access and existence): the editor,
// the run panel and the versions.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the reward function…">
      <SkeletonHeader />
      <SkeletonText lines={14} className="mb-4" />
      <SkeletonText lines={5} className="mb-4" />
      <SkeletonTable rows={5} columns={4} />
    </SkeletonPage>
  );
}
