import type { ReactNode } from "react";
import { notFound } from "next/navigation";
import { itemRef } from "@/lib/audit/schema.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { pairCaseExists } from "@/lib/pairwise/report-loaders.ts";

// The pair's page streams behind loading.tsx, and a streamed page has already answered 200: the role (403) and
// whether the item is a judged pair (404) are settled here, before anything is sent.
export default async function PairCaseLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ item: string }>;
}) {
  await requirePageUser("ledger.read");
  const ref = itemRef.safeParse({ itemId: (await params).item });
  if (!ref.success || !(await pairCaseExists(ref.data.itemId))) notFound();
  return children;
}
