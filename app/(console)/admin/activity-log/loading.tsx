import { SkeletonHeader, SkeletonPage, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the page reads: the log table.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the activity log…">
      <SkeletonHeader />
      <SkeletonTable rows={12} columns={5} />
    </SkeletonPage>
  );
}
