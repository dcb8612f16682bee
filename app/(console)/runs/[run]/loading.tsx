import { SkeletonChart, SkeletonHeader, SkeletonPage, SkeletonStats } from "@/components/ui/skeleton.tsx";

// While the run page reads its ledger rollups and its alarms (its layout has settled access and existence): the
// latest step's figures and the run's charts.
export default function Loading() {
  return (
    <SkeletonPage label="Loading the run…">
      <SkeletonHeader actions={2} />
      <SkeletonStats count={5} />
      <div className="grid gap-4 lg:grid-cols-2">
        <SkeletonChart />
        <SkeletonChart />
        <SkeletonChart />
        <SkeletonChart />
      </div>
    </SkeletonPage>
  );
}
