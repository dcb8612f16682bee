import { SkeletonHeader, SkeletonPage, SkeletonStats, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While a group's rollouts and their case are read: the group's figures, its members and the case.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the group…">
      <SkeletonHeader />
      <SkeletonStats count={4} />
      <SkeletonTable rows={8} columns={5} />
      <SkeletonText lines={6} className="mt-4" />
    </SkeletonPage>
  );
}
