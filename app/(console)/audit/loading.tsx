import { SkeletonHeader, SkeletonPage, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the shadow audit's batches and each annotator's progress are read.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the shadow audit…">
      <SkeletonHeader actions={1} />
      <SkeletonTable rows={6} columns={6} />
      <SkeletonTable rows={4} columns={5} className="mt-4" />
    </SkeletonPage>
  );
}
