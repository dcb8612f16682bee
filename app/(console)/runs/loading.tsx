import { SkeletonHeader, SkeletonPage, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the runs and the health of their latest step are read.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the runs…">
      <SkeletonHeader actions={1} />
      <SkeletonTable rows={6} columns={7} />
    </SkeletonPage>
  );
}
