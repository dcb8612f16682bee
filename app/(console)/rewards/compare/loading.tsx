import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the leaderboard's table, its thresholds and the head to head.
export default skeletonOf("Loading the reward leaderboard…", [
  { header: 1 },
  { text: 2, className: "mb-4" },
  { table: [6, 10] },
  { stats: 3 },
]);
