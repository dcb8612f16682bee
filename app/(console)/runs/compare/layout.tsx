import { sectionLayout } from "@/lib/auth/guards.ts";

// The comparison form streams behind loading.tsx: the role is settled here, before anything is sent.
export default sectionLayout("runs.read");
