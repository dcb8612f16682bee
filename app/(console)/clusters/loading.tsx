import { Bone, SkeletonHeader, SkeletonPage, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the clusters of a run's step window are computed: the window form, the cluster list and the co-fired table.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the clusters…">
      <SkeletonHeader />
      <Bone className="mb-4 h-9 w-full" />
      <div className="grid gap-4 lg:grid-cols-[2fr_1fr]">
        <SkeletonTable rows={8} columns={4} />
        <SkeletonTable rows={5} columns={2} />
      </div>
    </SkeletonPage>
  );
}
