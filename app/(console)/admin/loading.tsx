import { Bone, SkeletonHeader, SkeletonPage, SkeletonTable } from "@/components/ui/skeleton.tsx";

// While the admin pages read users, tokens, configs and the activity log: the section nav and its tables.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the admin pages…">
      <SkeletonHeader />
      <div className="mb-4 flex gap-2">
        {Array.from({ length: 5 }, (_, i) => (
          <Bone key={i} className="h-6 w-24" />
        ))}
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        <SkeletonTable rows={5} columns={3} />
        <SkeletonTable rows={5} columns={3} />
        <SkeletonTable rows={4} columns={3} />
        <SkeletonTable rows={4} columns={3} />
      </div>
    </SkeletonPage>
  );
}
