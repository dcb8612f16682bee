import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the reward functions table.
export default skeletonOf("Loading the reward functions…", [{ header: 1 }, { table: [6, 4] }]);
