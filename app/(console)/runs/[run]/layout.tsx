import type { ReactNode } from "react";
import { notFound } from "next/navigation";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { getRun } from "@/lib/runs/data.ts";
import { decodeSegment } from "@/lib/server/route-params.ts";

// The run page streams behind loading.tsx (its alarms and charts take a moment), and a streamed page has already
// answered 200. So what decides the status — the role (403) and whether the run exists (404) — is settled here,
// outside that boundary, before anything is sent.
export default async function RunLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ run: string }>;
}) {
  await requirePageUser("runs.read");
  const runId = decodeSegment((await params).run);
  if (runId === null || !(await getRun(runId))) notFound();
  return children;
}
