import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn.ts";
import { keepSymbols } from "@/components/ui/symbols.tsx";

export function Card({
  title,
  actions,
  children,
  className,
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={cn("rounded-md border border-border bg-bg", className)}>
      {(title || actions) && (
        <header className="flex items-center justify-between gap-2 border-b border-border px-3 py-2">
          <h2 className="text-[13px] font-semibold">{title}</h2>
          {actions}
        </header>
      )}
      <div>{children}</div>
    </section>
  );
}

export function Stat({ label, value, hint }: { label: ReactNode; value: ReactNode; hint?: ReactNode }) {
  return (
    <div className="rounded-md border border-border bg-bg px-3 py-2">
      <div className="text-[11px] uppercase tracking-wide text-fg-subtle">{keepSymbols(label)}</div>
      <div className="num mt-0.5 text-lg font-semibold">{value}</div>
      {hint && <div className="text-[11px] text-fg-muted">{hint}</div>}
    </div>
  );
}
