// The run page streams behind loading.tsx (its alarms and charts take a moment): its role and the run's existence are
// settled before anything is sent (lib/server/subject-layout.ts).
import { getRun } from "@/lib/runs/data.ts";
import { subjectLayout } from "@/lib/server/subject-layout.ts";

export default subjectLayout("runs.read", "run", async (id) => !!(await getRun(id)));
