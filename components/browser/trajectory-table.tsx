"use client";

import { useRouter } from "next/navigation";
import { flexRender, getCoreRowModel, useReactTable, type Table, type VisibilityState } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { browserColumns, type ColumnMeta } from "@/components/browser/columns.tsx";
import { usePagedRows, useRowKeys, useStored } from "@/components/browser/table-hooks.ts";
import { cn } from "@/components/ui/cn.ts";
import type { BrowseRow } from "@/lib/ledger/browse.ts";
import type { SortKey } from "@/lib/ledger/browse-schema.ts";

const VIS_KEY = "verity.browser.columns";
const DENSITY_KEY = "verity.browser.density";

type Density = "compact" | "comfortable";

type Props = {
  initialRows: BrowseRow[];
  initialCursor: string | null;
  /** the URL query of the current view, without cursor */
  query: string;
  sort: SortKey;
  dir: "asc" | "desc";
};

/**
 * The trajectory browser's table: server-sorted and server-filtered (the URL holds the state), rows virtualized,
 * further pages fetched by key as the list scrolls, keyboard j/k to move and Enter to open.
 */
export function TrajectoryTable({ initialRows, initialCursor, query, sort, dir }: Props) {
  const router = useRouter();
  const paged = usePagedRows(initialRows, initialCursor, query);
  const { rows, cursor, loading, loadError, loadMore } = paged;
  const [active, setActive] = useState(0);
  const [visibility, setVisibility] = useStored<VisibilityState>(VIS_KEY, {});
  const [density, setDensity] = useStored<Density>(DENSITY_KEY, "compact");
  const scrollRef = useRef<HTMLDivElement>(null);

  const searching = rows.some((r) => r.snippets !== undefined);
  const columns = useMemo(() => browserColumns(query, searching), [query, searching]);
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
  useRowKeys(rows.length, virtualizer, open, active, setActive);

  const colSpan = table.getVisibleLeafColumns().length;
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;

  return (
    <div>
      <TableToolbar table={table} density={density} setDensity={setDensity} loaded={rows.length} more={!!cursor} />
      <div
        ref={scrollRef}
        className="max-h-[calc(100vh-260px)] min-h-[300px] overflow-auto"
        data-testid="browser-scroll"
      >
        <table className="w-full border-collapse text-[13px]" aria-rowcount={rows.length}>
          <TableHead table={table} query={query} sort={sort} dir={dir} />
          <tbody>
            {padTop > 0 && <PadRow height={padTop} colSpan={colSpan} />}
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
            {padBottom > 0 && <PadRow height={padBottom} colSpan={colSpan} />}
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

/** The space of the rows above or below the drawn window (virtualized). */
function PadRow({ height, colSpan }: { height: number; colSpan: number }) {
  return (
    <tr aria-hidden>
      <td style={{ height }} colSpan={colSpan} />
    </tr>
  );
}

/** The keys, the column picker, the density switch and how many rows are loaded. */
function TableToolbar({
  table,
  density,
  setDensity,
  loaded,
  more,
}: {
  table: Table<BrowseRow>;
  density: Density;
  setDensity: (d: Density) => void;
  loaded: number;
  more: boolean;
}) {
  return (
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
        {loaded.toLocaleString("en-US")} loaded{more ? " · scroll for more" : " · end of list"}
      </span>
    </div>
  );
}

/** Sticky column headers; a sortable column links to the same view sorted by it (again: the other direction). */
function TableHead({
  table,
  query,
  sort,
  dir,
}: {
  table: Table<BrowseRow>;
  query: string;
  sort: SortKey;
  dir: "asc" | "desc";
}) {
  const sortHref = (key: SortKey): string => {
    const q = new URLSearchParams(query);
    const nextDir = sort === key && dir === "desc" ? "asc" : "desc";
    q.set("sort", key);
    q.set("dir", nextDir);
    return `/trajectories?${q}`;
  };
  return (
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
  );
}
