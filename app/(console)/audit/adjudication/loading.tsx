import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the disputes and the case being settled.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the disputes…">
      <SkeletonHeader />
      <SkeletonTable rows={6} columns={5} className="mb-4" />
      <div className="grid gap-4 lg:grid-cols-2">
        <SkeletonText lines={10} />
        <SkeletonText lines={10} />
      </div>
    </SkeletonPage>
  );
}
