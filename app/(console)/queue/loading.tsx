import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the queue's leases and items.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the review queue…">
      <SkeletonHeader />
      <SkeletonText lines={3} className="mb-4" />
      <SkeletonTable rows={8} columns={4} />
    </SkeletonPage>
  );
}
