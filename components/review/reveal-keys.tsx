"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { claimNextAction } from "@/lib/actions/audit.ts";

/** After the reveal: n leases the next item of the same batch, q goes back to the queue. */
export function RevealKeys({ batchId }: { batchId: number }) {
  const form = useRef<HTMLFormElement>(null);
  const router = useRouter();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    box.current?.setAttribute("data-ready", "true");
    const onKey = (e: KeyboardEvent) => {
      if (
        e.ctrlKey ||
        e.metaKey ||
        e.altKey ||
        (e.target instanceof HTMLElement && ["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName))
      )
        return;
      if (e.key === "n") {
        e.preventDefault();
        form.current?.requestSubmit();
      } else if (e.key === "q") {
        e.preventDefault();
        router.push("/queue");
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [router]);
  return (
    <div ref={box} className="flex items-center gap-2" data-testid="reveal-keys">
      <form action={claimNextAction} ref={form}>
        <input type="hidden" name="batchId" value={batchId} />
        <button type="submit" className="rounded bg-accent px-3 py-1 text-[13px] font-medium text-accent-fg">
          Next item <kbd className="ml-1 text-[11px] opacity-80">n</kbd>
        </button>
      </form>
      <Link href="/queue" className="rounded border border-border px-3 py-1 text-[13px]">
        Queue <kbd className="ml-1 text-[11px] text-fg-muted">q</kbd>
      </Link>
    </div>
  );
}
