"use client";

import { useRouter } from "next/navigation";
import { flexRender, getCoreRowModel, useReactTable, type VisibilityState } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { browserColumns, type ColumnMeta } from "@/components/browser/columns.tsx";
import { cn } from "@/components/ui/cn.ts";
import type { BrowseRow } from "@/lib/ledger/browse.ts";
import type { SortKey } from "@/lib/ledger/browse-schema.ts";

const VIS_KEY = "verity.browser.columns";
const DENSITY_KEY = "verity.browser.density";
const INTERACTIVE =
  "a[href], button, summary, input, select, textarea, label, [contenteditable], [role=button], [role=link], [role=checkbox], [role=menuitem], [tabindex]:not([tabindex='-1'])";

type Props = {
  initialRows: BrowseRow[];
  initialCursor: string | null;
  /** the URL query of the current view, without cursor */
  query: string;
  sort: SortKey;
  dir: "asc" | "desc";
};

function useStored<T>(key: string, initial: T): [T, (v: T) => void] {
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

/**
 * The trajectory browser's table: server-sorted and server-filtered (the URL holds the state), rows virtualized,
 * further pages fetched by key as the list scrolls, keyboard j/k to move and Enter to open.
 */
export function TrajectoryTable({ initialRows, initialCursor, query, sort, dir }: Props) {
  const router = useRouter();
  const [rows, setRows] = useState(initialRows);
  const [cursor, setCursor] = useState(initialCursor);
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const [visibility, setVisibility] = useStored<VisibilityState>(VIS_KEY, {});
  const [density, setDensity] = useStored<"compact" | "comfortable">(DENSITY_KEY, "compact");
  const scrollRef = useRef<HTMLDivElement>(null);

  const columns = useMemo(() => browserColumns(query), [query]);
  // TanStack Table's instance is not memoisable; this component does not rely on the React Compiler memoising it
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: rows,
    columns,
    state: { columnVisibility: visibility },
    onColumnVisibilityChange: (u) => setVisibility(typeof u === "function" ? u(visibility) : u),
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    manualFiltering: true,
    manualPagination: true,
  });
  const rowHeight = density === "compact" ? 28 : 38;
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
  });

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

  const items = virtualizer.getVirtualItems();
  const lastIndex = items.length ? items[items.length - 1].index : 0;
  useEffect(() => {
    if (lastIndex >= rows.length - 20 && cursor && !loading && !loadError) void loadMore();
  }, [lastIndex, rows.length, cursor, loading, loadError, loadMore]);

  const open = useCallback(
    (i: number) => {
      const r = rows[i];
      if (r) router.push(`/trajectories/${encodeURIComponent(r.trajectoryId)}${query ? `?${query}` : ""}`);
    },
    [rows, router, query],
  );

  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA" || t.isContentEditable))
        return;
      if (e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key === "j" || e.key === "k") {
        e.preventDefault();
        setActive((a) => {
          const n = Math.max(0, Math.min(rows.length - 1, a + (e.key === "j" ? 1 : -1)));
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
  }, [rows.length, virtualizer, open, active]);

  function sortHref(key: SortKey): string {
    const q = new URLSearchParams(query);
    const nextDir = sort === key && dir === "desc" ? "asc" : "desc";
    q.set("sort", key);
    q.set("dir", nextDir);
    return `/trajectories?${q}`;
  }

  const visibleCols = table.getVisibleLeafColumns();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;

  return (
    <div>
      <div className="flex flex-wrap items-center gap-3 border-b border-border px-3 py-1.5 text-[12px] text-fg-muted">
        <span>
          <kbd className="rounded border border-border px-1">j</kbd>/
          <kbd className="rounded border border-border px-1">k</kbd> move ·{" "}
          <kbd className="rounded border border-border px-1">Enter</kbd> open
        </span>
        <details className="relative">
          <summary className="cursor-pointer select-none">Columns</summary>
          <div className="absolute z-20 mt-1 w-56 rounded-md border border-border bg-bg p-2 shadow-lg">
            {table.getAllLeafColumns().map((c) => (
              <label key={c.id} className="flex items-center gap-2 py-0.5">
                <input type="checkbox" checked={c.getIsVisible()} onChange={c.getToggleVisibilityHandler()} />
                {(c.columnDef.meta as ColumnMeta).label}
              </label>
            ))}
          </div>
        </details>
        <button
          type="button"
          className="hover:text-fg"
          onClick={() => setDensity(density === "compact" ? "comfortable" : "compact")}
        >
          Density: {density}
        </button>
        <span className="ml-auto">
          {rows.length.toLocaleString("en-US")} loaded{cursor ? " · scroll for more" : " · end of list"}
        </span>
      </div>
      <div
        ref={scrollRef}
        className="max-h-[calc(100vh-260px)] min-h-[300px] overflow-auto"
        data-testid="browser-scroll"
      >
        <table className="w-full border-collapse text-[13px]" aria-rowcount={rows.length}>
          <thead>
            {table.getHeaderGroups().map((hg) => (
              <tr key={hg.id}>
                {hg.headers.map((h) => {
                  const meta = h.column.columnDef.meta as ColumnMeta;
                  const sorted = meta.sortKey && meta.sortKey === sort;
                  return (
                    <th
                      key={h.id}
                      scope="col"
                      aria-sort={sorted ? (dir === "asc" ? "ascending" : "descending") : undefined}
                      className={cn(
                        "sticky top-0 z-10 whitespace-nowrap border-b border-border bg-bg-subtle px-2 py-1.5 text-left text-[11px] font-medium uppercase tracking-wide text-fg-muted",
                        meta.numeric && "text-right",
                      )}
                    >
                      {meta.sortKey ? (
                        <a href={sortHref(meta.sortKey)} className="hover:text-fg">
                          {flexRender(h.column.columnDef.header, h.getContext())}
                          {sorted ? (dir === "asc" ? " ▲" : " ▼") : ""}
                        </a>
                      ) : (
                        flexRender(h.column.columnDef.header, h.getContext())
                      )}
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody>
            {padTop > 0 && (
              <tr aria-hidden>
                <td style={{ height: padTop }} colSpan={visibleCols.length} />
              </tr>
            )}
            {items.map((vi) => {
              const row = table.getRowModel().rows[vi.index];
              return (
                <tr
                  key={row.id}
                  data-index={vi.index}
                  aria-selected={vi.index === active}
                  style={{ height: rowHeight }}
                  onClick={() => setActive(vi.index)}
                  onDoubleClick={() => open(vi.index)}
                  className={cn("cursor-default", vi.index === active ? "bg-accent/10" : "hover:bg-bg-subtle")}
                >
                  {row.getVisibleCells().map((cell) => {
                    const meta = cell.column.columnDef.meta as ColumnMeta;
                    return (
                      <td
                        key={cell.id}
                        className={cn(
                          "whitespace-nowrap border-b border-border px-2",
                          meta.numeric && "num text-right",
                        )}
                      >
                        {flexRender(cell.column.columnDef.cell, cell.getContext())}
                      </td>
                    );
                  })}
                </tr>
              );
            })}
            {padBottom > 0 && (
              <tr aria-hidden>
                <td style={{ height: padBottom }} colSpan={visibleCols.length} />
              </tr>
            )}
          </tbody>
        </table>
        {loading && <p className="px-3 py-2 text-fg-muted">Loading more…</p>}
        {loadError && (
          <p className="px-3 py-2 text-bad">
            Could not load more rows: {loadError}.{" "}
            <button type="button" className="underline" onClick={() => void loadMore()}>
              Retry
            </button>
          </p>
        )}
      </div>
    </div>
  );
}
