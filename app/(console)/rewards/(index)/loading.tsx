import { SkeletonHeader, SkeletonPage, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the page reads: the reward functions table.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the reward functions…">
      <SkeletonHeader actions={1} />
      <SkeletonTable rows={6} columns={4} />
    </SkeletonPage>
  );
}
