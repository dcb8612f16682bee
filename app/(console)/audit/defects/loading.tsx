import { SkeletonHeader, SkeletonPage, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the page reads: the defects table.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the defects…">
      <SkeletonHeader />
      <SkeletonTable rows={10} columns={5} />
    </SkeletonPage>
  );
}
