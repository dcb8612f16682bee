import Link from "next/link";
import type { ReactNode } from "react";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";

/**
 * What a queue page (a review item, a pair) shows instead of its form: no item chosen, or one that is not this
 * user's to annotate now — said in `notice`, with the way back to the queue.
 */
export function QueueNotice({ title, notice, children }: { title: string; notice: string; children?: ReactNode }) {
  return (
    <>
      <PageHeader title={title} />
      <EmptyState title={notice}>
        {children}
        {children ? " " : null}
        <Link href="/queue" className="text-accent">
          Back to the queue
        </Link>
      </EmptyState>
    </>
  );
}

/** The item a queue page was opened on (`?item=`), as the text the item schema parses. */
export const itemParam = (sp: Record<string, string | string[] | undefined>) =>
  typeof sp.item === "string" ? sp.item : "";
