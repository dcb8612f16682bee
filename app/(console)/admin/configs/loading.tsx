import { SkeletonHeader, SkeletonPage, SkeletonTable, SkeletonText } from "@/components/ui/skeleton.tsx";

// While the page reads: the configurations table and its forms.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the verifier configurations…">
      <SkeletonHeader />
      <SkeletonTable rows={5} columns={4} className="mb-4" />
      <div className="grid gap-4 lg:grid-cols-2">
        <SkeletonText lines={6} />
        <SkeletonText lines={6} />
      </div>
    </SkeletonPage>
  );
}
