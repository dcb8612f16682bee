import { SkeletonChart, SkeletonHeader, SkeletonPage, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the compare form and the comparison.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the comparison…">
<SkeletonHeader />
<SkeletonText lines={2} className="mb-4" />
<div className="grid gap-4 lg:grid-cols-2">
<SkeletonChart />
<SkeletonChart />
</div>
    </SkeletonPage>
  );
}
