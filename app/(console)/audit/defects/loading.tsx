import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the defects table.
export default skeletonOf("Loading the defects…", [{ header: 0 }, { table: [10, 5] }]);
