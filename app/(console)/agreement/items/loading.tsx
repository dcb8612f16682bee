import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the filter and the items table.
export default skeletonOf("Loading the items…", [{ header: 0 }, { text: 2, className: "mb-4" }, { table: [10, 5] }]);
