import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the item under review, its comparison and the annotation form.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the review item…">
<SkeletonHeader />
<div className="grid gap-4 lg:grid-cols-2">
<SkeletonText lines={12} />
<SkeletonText lines={8} />
</div>
<SkeletonTable rows={4} columns={3} className="mt-4" />
    </SkeletonPage>
  );
}
