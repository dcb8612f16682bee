import { SkeletonHeader, SkeletonPage, SkeletonText } from "@/components/ui/skeleton.tsx";

// While a pair is leased and read: the two rollouts side by side, the case and the verdict form.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the pair…">
      <SkeletonHeader />
      <SkeletonText lines={4} />
      <div className="mt-4 grid gap-4 lg:grid-cols-2">
        <SkeletonText lines={12} />
        <SkeletonText lines={12} />
      </div>
      <SkeletonText lines={3} className="mt-4" />
    </SkeletonPage>
  );
}
