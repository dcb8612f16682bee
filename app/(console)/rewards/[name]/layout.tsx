import type { ReactNode } from "react";
import { notFound } from "next/navigation";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { findVersion } from "@/lib/rewards/data.ts";

// The reward function's page streams behind loading.tsx, and a streamed page has already answered 200. So what
// decides the status — the role (403) and whether the function exists (404) — is settled here, before anything is sent.
export default async function RewardFunctionLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ name: string }>;
}) {
  await requirePageUser("rewards.manage");
  if (!(await findVersion(decodeURIComponent((await params).name), undefined))) notFound();
  return children;
}
