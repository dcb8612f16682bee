// The demo accounts: one per role (two annotators, for overlap), password "verity". The sign-in page lists those
// that still have it in demo mode (listDemoSignIns); lib/demo/users.ts writes them into a fresh database.
import type { Role } from "@/lib/auth/policy.ts";

export const DEMO_PASSWORD = "verity";

export const DEMO_USERS: { email: string; name: string; role: Role }[] = [
  { email: "admin@verity.local", name: "Ada Admin", role: "admin" },
  { email: "lead@verity.local", name: "Lee Lead", role: "lead" },
  { email: "researcher@verity.local", name: "Rae Researcher", role: "researcher" },
  { email: "annotator@verity.local", name: "Ann Annotator", role: "annotator" },
  { email: "annotator2@verity.local", name: "Andy Annotator", role: "annotator" },
];
