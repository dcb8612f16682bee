import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the window form and the co-fired table.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the clusters…">
      <SkeletonHeader />
      <SkeletonText lines={2} className="mb-4" />
      <SkeletonTable rows={10} columns={5} />
    </SkeletonPage>
  );
}
