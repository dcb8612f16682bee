import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the new-user form and the users table.
export default skeletonOf("Loading the users…", [{ header: 0 }, { text: 3, className: "mb-4" }, { table: [8, 5] }]);
