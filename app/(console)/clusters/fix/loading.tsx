import { skeletonOf } from "@/components/ui/skeleton.tsx";

// While the page reads: the bulk-fix form.
export default skeletonOf("Loading the bulk fix…", [{ header: 0 }, { text: 10 }]);
