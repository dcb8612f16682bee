import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the trajectory browser reads its filters' facets and the first page of the ledger.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the trajectories…">
      <SkeletonHeader />
      <SkeletonText lines={3} />
      <SkeletonTable rows={12} columns={7} className="mt-4" />
    </SkeletonPage>
  );
}
