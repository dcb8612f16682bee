import { SkeletonHeader, SkeletonPage, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the bulk-fix form.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the bulk fix…">
      <SkeletonHeader />
      <SkeletonText lines={10} />
    </SkeletonPage>
  );
}
