// The workbench streams behind loading.tsx: its role and the case's existence are settled before anything is sent
// (lib/server/subject-layout.ts).
import { caseExists } from "@/lib/cases/loaders.ts";
import { subjectLayout } from "@/lib/server/subject-layout.ts";

export default subjectLayout("cases.revise", "ticket", caseExists);
