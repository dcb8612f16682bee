import { SkeletonHeader, SkeletonPage, SkeletonStats, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the page reads: the alarm figures and the alarm table.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the monitors…">
      <SkeletonHeader />
      <SkeletonStats count={4} />
      <SkeletonTable rows={8} columns={5} />
    </SkeletonPage>
  );
}
