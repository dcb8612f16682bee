import { SkeletonHeader, SkeletonPage, SkeletonStats, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the page reads: the figures, the breakdowns and the inversions.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the pairwise agreement…">
      <SkeletonHeader />
      <SkeletonStats count={5} />
      <div className="grid gap-4 lg:grid-cols-2">
        <SkeletonTable rows={5} columns={4} />
        <SkeletonTable rows={5} columns={4} />
      </div>
      <SkeletonTable rows={6} columns={5} className="mt-4" />
    </SkeletonPage>
  );
}
