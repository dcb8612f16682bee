import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the log table.
export default skeletonOf("Loading the activity log…", [{ header: 0 }, { table: [12, 5] }]);
