import type { ReactNode } from "react";
import { notFound } from "next/navigation";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { caseExists } from "@/lib/cases/loaders.ts";
import { decodeSegment } from "@/lib/server/route-params.ts";

// The workbench streams behind loading.tsx, and a streamed page has already answered 200: the role (403) and whether
// the case exists (404) are settled here, before anything is sent.
export default async function CaseWorkbenchLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ ticket: string }>;
}) {
  await requirePageUser("cases.revise");
  const ticketId = decodeSegment((await params).ticket);
  if (ticketId === null || !(await caseExists(ticketId))) notFound();
  return children;
}
