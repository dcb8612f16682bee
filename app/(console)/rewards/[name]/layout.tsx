// The reward function's page streams behind loading.tsx: its role and the function's existence are settled before
// anything is sent (lib/server/subject-layout.ts).
import { findVersion } from "@/lib/rewards/data.ts";
import { subjectLayout } from "@/lib/server/subject-layout.ts";

export default subjectLayout("rewards.manage", "name", async (name) => !!(await findVersion(name, undefined)));
