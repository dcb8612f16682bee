import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the alarm figures and the alarm table.
export default skeletonOf("Loading the monitors…", [{ header: 0 }, { stats: 4 }, { table: [8, 5] }]);
