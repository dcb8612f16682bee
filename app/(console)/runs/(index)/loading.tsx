import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the compare form and the runs table.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the runs…">
      <SkeletonHeader />
      <SkeletonText lines={2} className="mb-4" />
      <SkeletonTable rows={10} columns={6} />
    </SkeletonPage>
  );
}
