"use client";

import { useEffect, useState } from "react";
import { isTyping, type KeyGroup } from "@/components/review/reading-keys.ts";

/**
 * Every key of the page, on ? (and the button). While it is open the page's own keys are held back — it listens in
 * the capture phase, ahead of them — so a key pressed to read the list does not score or scroll; ? or esc closes it.
 */
export function KeyHelp({ groups }: { groups: KeyGroup[] }) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "?") {
        e.preventDefault();
        e.stopPropagation();
        setOpen((o) => !o);
      } else if (open && e.key === "Escape") {
        e.preventDefault();
        e.stopPropagation();
        setOpen(false);
      } else if (open && e.key !== "Tab") e.stopPropagation();
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [open]);
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        className="rounded border border-border px-2 py-0.5 text-[12px] text-fg-muted"
      >
        Every key <kbd className="ml-1 font-mono text-[11px]">?</kbd>
      </button>
      {open && (
        <div
          className="fixed inset-0 z-50 flex items-start justify-center bg-black/30 p-8"
          onClick={() => setOpen(false)}
        >
          <div
            role="dialog"
            aria-modal="true"
            aria-label="Keys"
            className="max-h-full w-[640px] max-w-full overflow-y-auto rounded-md border border-border bg-bg p-4 text-[13px] shadow-lg"
            onClick={(e) => e.stopPropagation()}
          >
            <h2 className="mb-2 text-[14px] font-semibold">Keys</h2>
            {groups.map((g) => (
              <section key={g.title} className="mb-3">
                <h3 className="mb-1 text-[12px] font-medium text-fg-subtle">{g.title}</h3>
                <dl className="grid grid-cols-[9rem_1fr] gap-x-3 gap-y-0.5">
                  {g.keys.map(([k, what]) => (
                    <div key={k} className="contents">
                      <dt>
                        <kbd className="rounded border border-border bg-bg-subtle px-1 font-mono text-[11px]">{k}</kbd>
                      </dt>
                      <dd className="text-fg-muted">{what}</dd>
                    </div>
                  ))}
                </dl>
              </section>
            ))}
            <p className="text-[12px] text-fg-subtle">Keys do nothing while you type in a field; esc leaves it.</p>
          </div>
        </div>
      )}
    </>
  );
}
