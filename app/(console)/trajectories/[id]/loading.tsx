import { SkeletonHeader, SkeletonPage, SkeletonStats, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads the entry, its rollout and case (its layout has settled access and existence): the reward's
// figures, the sub-scores and the steps beside the reasons.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the trajectory…">
      <SkeletonHeader />
      <SkeletonStats count={4} />
      <div className="grid gap-4 lg:grid-cols-2">
        <SkeletonText lines={6} />
        <SkeletonText lines={6} />
      </div>
      <SkeletonText lines={12} className="mt-4" />
    </SkeletonPage>
  );
}
