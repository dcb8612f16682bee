import type { ReactNode } from "react";

/** What a page shows when there is nothing yet: say so, and say what to do next. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-md border border-dashed border-border bg-bg-subtle px-6 py-10 text-center">
      <p className="text-sm font-medium">{title}</p>
      {children && <div className="mx-auto mt-2 max-w-xl text-fg-muted">{children}</div>}
    </div>
  );
}
