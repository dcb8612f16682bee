import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: its cards and the users table.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the administration…">
      <SkeletonHeader />
      <div className="mb-4 grid gap-4 lg:grid-cols-3">
        <SkeletonText lines={3} />
        <SkeletonText lines={3} />
        <SkeletonText lines={3} />
      </div>
      <SkeletonTable rows={6} columns={4} />
    </SkeletonPage>
  );
}
