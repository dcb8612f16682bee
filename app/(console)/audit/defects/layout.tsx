import { sectionLayout } from "@/lib/auth/guards.ts";

// The role the page asks, settled before loading.tsx streams anything (a streamed page has already answered 200).
export default sectionLayout("adjudicate");
