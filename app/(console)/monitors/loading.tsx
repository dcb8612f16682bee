import { SkeletonHeader, SkeletonPage, SkeletonStats, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the alarms of every run and their recent changes are read.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the monitors…">
      <SkeletonHeader />
      <SkeletonStats count={4} />
      <SkeletonTable rows={6} columns={6} />
      <SkeletonTable rows={4} columns={4} className="mt-4" />
    </SkeletonPage>
  );
}
