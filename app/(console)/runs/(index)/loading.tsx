import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the compare form and the runs table.
export default skeletonOf("Loading the runs…", [{ header: 0 }, { text: 2, className: "mb-4" }, { table: [10, 6] }]);
