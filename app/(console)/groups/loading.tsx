import { SkeletonHeader, SkeletonPage, SkeletonStats, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the page reads: the group's figures and its members.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the group…">
      <SkeletonHeader />
      <SkeletonStats count={4} />
      <SkeletonTable rows={3} columns={4} className="mb-4" />
      <SkeletonTable rows={8} columns={5} />
    </SkeletonPage>
  );
}
