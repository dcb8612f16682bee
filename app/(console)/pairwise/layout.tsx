import { sectionLayout } from "@/lib/auth/guards.ts";

// The pairwise review page streams behind loading.tsx: the role is settled here, before anything is sent.
export default sectionLayout("audit.review");
