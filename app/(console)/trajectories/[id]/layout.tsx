// The trajectory page streams behind loading.tsx: its role and whether the trajectory has a current entry are settled
// before anything is sent (lib/server/subject-layout.ts).
import { trajectoryShown } from "@/lib/ledger/detail.ts";
import { subjectLayout } from "@/lib/server/subject-layout.ts";

export default subjectLayout("ledger.read", "id", trajectoryShown);
