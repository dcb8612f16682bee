import { sectionLayout } from "@/lib/auth/guards.ts";

// The role the page asks (as the agreement report: every ledger and reward number), settled before loading.tsx
// streams anything (a streamed page has already answered 200).
export default sectionLayout("ledger.read");
