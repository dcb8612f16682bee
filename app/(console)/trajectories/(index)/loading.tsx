import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the filters and the trajectories table.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the trajectories…">
      <SkeletonHeader />
      <SkeletonText lines={3} className="mb-4" />
      <SkeletonTable rows={12} columns={6} />
    </SkeletonPage>
  );
}
