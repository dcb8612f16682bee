"use client";
// The trajectory table's state outside its drawing: remembered view preferences, the rows paged by key as the list
// scrolls, and the j/k/Enter keys.
import type { Virtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useState } from "react";
import type { BrowseRow } from "@/lib/ledger/browse.ts";

const INTERACTIVE =
  "a[href], button, summary, input, select, textarea, label, [contenteditable], [role=button], [role=link], [role=checkbox], [role=menuitem], [tabindex]:not([tabindex='-1'])";

/** A preference kept in localStorage, restored after hydration (the server renders the default). */
export function useStored<T>(key: string, initial: T): [T, (v: T) => void] {
  const [value, setValue] = useState<T>(initial);
  useEffect(() => {
    try {
      const raw = localStorage.getItem(key);
      // eslint-disable-next-line react-hooks/set-state-in-effect -- restoring a remembered preference after hydration
      if (raw) setValue(JSON.parse(raw) as T);
    } catch {
      /* a bad stored value is ignored */
    }
  }, [key]);
  const set = useCallback(
    (v: T) => {
      setValue(v);
      localStorage.setItem(key, JSON.stringify(v));
    },
    [key],
  );
  return [value, set];
}

/** The rows shown so far and the key of the next page, fetched from the rows route of the same view. */
export function usePagedRows(initialRows: BrowseRow[], initialCursor: string | null, query: string) {
  const [rows, setRows] = useState(initialRows);
  const [cursor, setCursor] = useState(initialCursor);
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const loadMore = useCallback(async () => {
    if (!cursor || loading) return;
    setLoading(true);
    setLoadError(null);
    try {
      const res = await fetch(`/api/ledger/rows?${query ? `${query}&` : ""}after=${encodeURIComponent(cursor)}`);
      const body = (await res.json()) as {
        rows?: BrowseRow[];
        nextCursor?: string | null;
        error?: { message: string };
      };
      if (!res.ok || !body.rows) throw new Error(body.error?.message ?? `HTTP ${res.status}`);
      setRows((r) => [...r, ...body.rows!]);
      setCursor(body.nextCursor ?? null);
    } catch (err) {
      setLoadError(err instanceof Error ? err.message : String(err));
    } finally {
      setLoading(false);
    }
  }, [cursor, loading, query]);
  return { rows, cursor, loading, loadError, loadMore };
}

/** j/k move the active row (scrolled into view), Enter opens it — unless a control or a text field has the key. */
export function useRowKeys(
  count: number,
  virtualizer: Virtualizer<HTMLDivElement, Element>,
  open: (i: number) => void,
  active: number,
  setActive: (f: (a: number) => number) => void,
) {
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA" || t.isContentEditable))
        return;
      if (e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key === "j" || e.key === "k") {
        e.preventDefault();
        setActive((a) => {
          const n = Math.max(0, Math.min(count - 1, a + (e.key === "j" ? 1 : -1)));
          virtualizer.scrollToIndex(n, { align: "auto" });
          return n;
        });
      } else if (e.key === "Enter") {
        // Enter on a button, link, summary or form control is that control's own action, not "open the row"
        if (t?.closest(INTERACTIVE)) return;
        e.preventDefault();
        open(active);
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [count, virtualizer, open, active, setActive]);
}
