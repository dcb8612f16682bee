"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { claimNextAction } from "@/lib/actions/audit.ts";

export type QueueRow = { batchId: number; name: string; available: number; mine: string | null; pairwise: boolean };

const resume = (r: QueueRow) => `${r.pairwise ? "/pairwise" : "/review"}?item=${r.mine}`;

const isTyping = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT");

/**
 * The batches with work for the annotator. Keys: n (or enter) starts the first batch — or resumes the item held —,
 * 1–9 start that batch. Starting leases the next item and opens it.
 */
export function QueueList({ rows }: { rows: QueueRow[] }) {
  const forms = useRef<(HTMLFormElement | null)[]>([]);
  const router = useRouter();
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    list.current?.setAttribute("data-ready", "true");
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const start = (i: number) => {
        const r = rows[i];
        if (!r) return;
        e.preventDefault();
        if (r.mine) router.push(resume(r));
        else forms.current[i]?.requestSubmit();
      };
      if (e.key === "n" || e.key === "Enter") start(0);
      else if (/^[1-9]$/.test(e.key)) start(Number(e.key) - 1);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [rows, router]);

  return (
    <ul ref={list} className="divide-y divide-border" data-testid="queue-batches">
      {rows.map((r, i) => (
        <li key={r.batchId} className="flex items-center gap-3 px-3 py-2">
          <kbd className="rounded border border-border px-1 font-mono text-[11px] text-fg-muted">
            {i < 9 ? i + 1 : ""}
          </kbd>
          <span className="flex-1 font-medium">
            {r.name} {r.pairwise && <span className="text-[11px] text-fg-muted">(pairwise)</span>}
          </span>
          <span className="text-fg-muted">{r.available} to review</span>
          {r.mine ? (
            <Link href={resume(r)} className="rounded bg-accent px-3 py-1 text-[13px] font-medium text-accent-fg">
              Resume item #{r.mine}
            </Link>
          ) : (
            <form action={claimNextAction} ref={(el) => void (forms.current[i] = el)}>
              <input type="hidden" name="batchId" value={r.batchId} />
              <button type="submit" className="rounded bg-accent px-3 py-1 text-[13px] font-medium text-accent-fg">
                Start
              </button>
            </form>
          )}
        </li>
      ))}
    </ul>
  );
}
