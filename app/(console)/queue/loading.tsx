import { SkeletonHeader, SkeletonPage, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the review queue and the user's latest reviews are read.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the queue…">
      <SkeletonHeader />
      <SkeletonTable rows={8} columns={5} />
      <SkeletonTable rows={4} columns={4} className="mt-4" />
    </SkeletonPage>
  );
}
