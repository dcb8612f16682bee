import { SkeletonHeader, SkeletonPage, SkeletonStats, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the sample's figures and the batch form.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the new batch…">
      <SkeletonHeader />
      <SkeletonStats count={5} />
      <div className="grid gap-4 lg:grid-cols-2">
        <SkeletonText lines={8} />
        <SkeletonTable rows={5} columns={3} />
      </div>
    </SkeletonPage>
  );
}
