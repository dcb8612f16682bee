// Placeholders in the shape of a page while its server component reads (each console section's loading.tsx): the
// header, the figures, the tables and charts where they will be, so nothing jumps when the page arrives. Grey blocks
// only: no spinner, no text to read but the screen reader's "Loading …".
import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn.ts";

/** One grey block; `className` gives its size. */
export function Bone({ className }: { className?: string }) {
  return <span aria-hidden className={cn("block animate-pulse rounded bg-bg-muted", className)} />;
}

/** The page while it loads: `label` is what a screen reader hears ("Loading the runs…"). */
export function SkeletonPage({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div aria-busy="true" aria-live="polite" data-skeleton>
      <span className="sr-only">{label}</span>
      {children}
    </div>
  );
}

/** Where PageHeader's title and description will be; `actions` reserves the buttons on its right. */
export function SkeletonHeader({ actions = 0 }: { actions?: number }) {
  return (
    <div className="mb-4 flex flex-wrap items-end justify-between gap-3">
      <div className="space-y-1.5">
        <Bone className="h-5 w-40" />
        <Bone className="h-3.5 w-96 max-w-full" />
      </div>
      {actions > 0 && (
        <div className="flex items-center gap-2">
          {Array.from({ length: actions }, (_, i) => (
            <Bone key={i} className="h-7 w-24" />
          ))}
        </div>
      )}
    </div>
  );
}

/** A row of Stat boxes. */
export function SkeletonStats({ count }: { count: number }) {
  return (
    <div className="mb-4 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5">
      {Array.from({ length: count }, (_, i) => (
        <div key={i} className="rounded-md border border-border bg-bg px-3 py-2">
          <Bone className="h-2.5 w-16" />
          <Bone className="mt-1.5 h-5 w-20" />
        </div>
      ))}
    </div>
  );
}

/** A Card with a title bar around `children`. */
export function SkeletonCard({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <section className={cn("rounded-md border border-border bg-bg", className)}>
      <header className="border-b border-border px-3 py-2">
        <Bone className="h-3.5 w-32" />
      </header>
      <div>{children}</div>
    </section>
  );
}

/** A table of `rows` rows and `columns` columns, in a Card. */
export function SkeletonTable({ rows, columns, className }: { rows: number; columns: number; className?: string }) {
  return (
    <SkeletonCard className={className}>
      <div className="divide-y divide-border">
        {Array.from({ length: rows + 1 }, (_, r) => (
          <div key={r} className="grid gap-3 px-3 py-2" style={{ gridTemplateColumns: `repeat(${columns}, 1fr)` }}>
            {Array.from({ length: columns }, (_, c) => (
              <Bone key={c} className={cn("h-3", r === 0 ? "w-1/2" : c === 0 ? "w-4/5" : "w-3/5")} />
            ))}
          </div>
        ))}
      </div>
    </SkeletonCard>
  );
}

/** A chart's plot area, in a Card. */
export function SkeletonChart({ className }: { className?: string }) {
  return (
    <SkeletonCard className={className}>
      <div className="p-3">
        <Bone className="h-48 w-full" />
      </div>
    </SkeletonCard>
  );
}

/** A block of text lines (a case, a transcript, a form), in a Card. */
export function SkeletonText({ lines, className }: { lines: number; className?: string }) {
  return (
    <SkeletonCard className={className}>
      <div className="space-y-2 p-3">
        {Array.from({ length: lines }, (_, i) => (
          <Bone key={i} className={cn("h-3", i % 3 === 2 ? "w-2/3" : "w-full")} />
        ))}
      </div>
    </SkeletonCard>
  );
}

/** One block of a section's skeleton, as data (`skeletonOf`). */
export type SkeletonPart =
  | { header: number }
  | { stats: number }
  | { table: [rows: number, columns: number]; className?: string }
  | { chart: true; className?: string }
  | { text: number; className?: string }
  | { grid: string; parts: SkeletonPart[] };

function Part({ part }: { part: SkeletonPart }) {
  if ("header" in part) return <SkeletonHeader actions={part.header} />;
  if ("stats" in part) return <SkeletonStats count={part.stats} />;
  if ("table" in part) return <SkeletonTable rows={part.table[0]} columns={part.table[1]} className={part.className} />;
  if ("chart" in part) return <SkeletonChart className={part.className} />;
  if ("text" in part) return <SkeletonText lines={part.text} className={part.className} />;
  return (
    <div className={part.grid}>
      {part.parts.map((p, i) => (
        <Part key={i} part={p} />
      ))}
    </div>
  );
}

/**
 * A section's loading.tsx, its blocks in order: `export default skeletonOf("Loading the runs…", [{ header: 0 },
 * { table: [8, 6] }])`.
 */
export function skeletonOf(label: string, parts: SkeletonPart[]) {
  return function Loading() {
    return (
      <SkeletonPage label={label}>
        {parts.map((p, i) => (
          <Part key={i} part={p} />
        ))}
      </SkeletonPage>
    );
  };
}
