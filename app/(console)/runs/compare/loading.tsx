import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page lists the runs to choose from (its layout has settled access).
export default skeletonOf("Loading the runs…", [{ header: 0 }, { text: 3 }]);
