import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the window form and the co-fired table.
export default skeletonOf("Loading the clusters…", [{ header: 0 }, { text: 2, className: "mb-4" }, { table: [10, 5] }]);
