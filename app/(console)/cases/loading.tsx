import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While a case (a ticket's spec, its versions and its rollouts) is read.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the case…">
      <SkeletonHeader actions={1} />
      <div className="grid gap-4 lg:grid-cols-2">
        <SkeletonText lines={14} />
        <SkeletonText lines={10} />
      </div>
      <SkeletonTable rows={4} columns={4} className="mt-4" />
    </SkeletonPage>
  );
}
