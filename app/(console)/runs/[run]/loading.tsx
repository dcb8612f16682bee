import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the run page reads its ledger rollups and its alarms (its layout has settled access and existence): the
// latest step's figures and the run's charts.
export default skeletonOf("Loading the run…", [
  { header: 2 },
  { stats: 5 },
  { grid: "grid gap-4 lg:grid-cols-2", parts: [{ chart: true }, { chart: true }, { chart: true }, { chart: true }] },
]);
