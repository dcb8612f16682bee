import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While an item is leased and read: the rollout against the ledger, its transcript, and the annotation form.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the item…">
      <SkeletonHeader />
      <div className="grid gap-4 lg:grid-cols-[3fr_2fr]">
        <div className="space-y-4">
          <SkeletonTable rows={6} columns={3} />
          <SkeletonText lines={10} />
        </div>
        <SkeletonText lines={16} />
      </div>
    </SkeletonPage>
  );
}
