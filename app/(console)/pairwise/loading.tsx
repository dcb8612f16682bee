import { SkeletonHeader, SkeletonPage, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the two rollouts side by side and the preference form.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the pair to compare…">
<SkeletonHeader />
<div className="grid gap-4 lg:grid-cols-2">
<SkeletonText lines={12} />
<SkeletonText lines={12} />
</div>
    </SkeletonPage>
  );
}
