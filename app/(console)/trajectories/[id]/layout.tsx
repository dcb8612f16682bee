import type { ReactNode } from "react";
import { notFound } from "next/navigation";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { trajectoryShown } from "@/lib/ledger/detail.ts";
import { decodeSegment } from "@/lib/server/route-params.ts";

// The trajectory page streams behind loading.tsx, and a streamed page has already answered 200. So what decides the
// status — the role (403) and whether the trajectory has a current entry (404) — is settled here, before anything is
// sent.
export default async function TrajectoryLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ id: string }>;
}) {
  await requirePageUser("ledger.read");
  const trajectoryId = decodeSegment((await params).id);
  if (trajectoryId === null || !(await trajectoryShown(trajectoryId))) notFound();
  return children;
}
