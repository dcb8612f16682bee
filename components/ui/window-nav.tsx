import Link from "next/link";
import type { Window } from "@/lib/ledger/page-window.ts";

type Search = Record<string, string | string[] | undefined>;

function hrefWith(search: Search, param: string, from: number): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(search))
    if (k !== param) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) q.append(k, x);
  if (from > 0) q.set(param, String(from));
  const s = q.toString();
  return s ? `?${s}` : "?";
}

/**
 * Where a windowed list or text stands (lib/ledger/page-window.ts) and the links that move it: nothing when the
 * whole of it is shown.
 */
export function WindowNav({
  window: w,
  param,
  search,
  noun,
}: {
  window: Window;
  param: string;
  search: Search;
  noun: string;
}) {
  if (w.from === 0 && w.to >= w.total) return null;
  const size = w.to - w.from;
  const fmt = (n: number) => n.toLocaleString("en-US");
  return (
    <p className="flex flex-wrap gap-3 px-3 py-2 text-[12px] text-fg-muted" data-testid={`window-${param}`}>
      <span>
        Showing {noun} {fmt(w.from + 1)}–{fmt(w.to)} of {fmt(w.total)}.
      </span>
      {w.from > 0 && (
        <Link className="text-accent" href={hrefWith(search, param, Math.max(0, w.from - size))}>
          Show the previous {fmt(Math.min(size, w.from))}
        </Link>
      )}
      {w.to < w.total && (
        <Link className="text-accent" href={hrefWith(search, param, w.to)}>
          Show more ({fmt(Math.min(size, w.total - w.to))} of {fmt(w.total - w.to)} more)
        </Link>
      )}
    </p>
  );
}
