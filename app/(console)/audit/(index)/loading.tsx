import { SkeletonHeader, SkeletonPage, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the page reads: the batches and the annotators.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the audit batches…">
      <SkeletonHeader actions={1} />
      <SkeletonTable rows={6} columns={5} className="mb-4" />
      <SkeletonTable rows={4} columns={4} />
    </SkeletonPage>
  );
}
