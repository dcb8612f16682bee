import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the new-user form and the users table.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the users…">
      <SkeletonHeader />
      <SkeletonText lines={3} className="mb-4" />
      <SkeletonTable rows={8} columns={5} />
    </SkeletonPage>
  );
}
