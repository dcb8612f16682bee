import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the new-token form and the tokens table.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the API tokens…">
      <SkeletonHeader />
      <SkeletonText lines={3} className="mb-4" />
      <SkeletonTable rows={6} columns={5} />
    </SkeletonPage>
  );
}
