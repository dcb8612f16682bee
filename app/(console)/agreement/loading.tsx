import {
  Bone,
  SkeletonChart,
  SkeletonHeader,
  SkeletonPage,
  SkeletonStats,
  SkeletonTable,
} from "@/components/ui/skeleton.tsx";

// While the agreement report is computed: the filter bar, the headline figures, the curve and the tables.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the agreement report…">
      <SkeletonHeader />
      <Bone className="mb-4 h-9 w-full" />
      <SkeletonStats count={5} />
      <div className="grid gap-4 lg:grid-cols-2">
        <SkeletonTable rows={6} columns={4} />
        <SkeletonChart />
      </div>
      <SkeletonTable rows={4} columns={5} className="mt-4" />
    </SkeletonPage>
  );
}
