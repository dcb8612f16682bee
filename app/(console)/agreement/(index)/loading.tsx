import { SkeletonHeader, SkeletonPage, SkeletonStats, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the page reads: the agreement figures and its tables.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the agreement figures…">
      <SkeletonHeader />
      <SkeletonStats count={5} />
      <div className="grid gap-4 lg:grid-cols-2">
        <SkeletonTable rows={5} columns={4} />
        <SkeletonTable rows={5} columns={4} />
        <SkeletonTable rows={5} columns={4} />
        <SkeletonTable rows={5} columns={4} />
      </div>
    </SkeletonPage>
  );
}
