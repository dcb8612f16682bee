import { SkeletonHeader, SkeletonPage, SkeletonStats, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the alarms of every run and their recent changes are read: the red, amber and green counts, the alarms and
// the latest changes beside them.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the monitors…">
      <SkeletonHeader />
      <SkeletonStats count={4} />
      <div className="grid gap-4 lg:grid-cols-[2fr_1fr]">
        <SkeletonTable rows={6} columns={6} />
        <SkeletonTable rows={6} columns={3} />
      </div>
    </SkeletonPage>
  );
}
