import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn.ts";
import { keepSymbols } from "@/components/ui/symbols.tsx";

// Dense table primitives: 13px text, tight rows, sticky header, numbers right-aligned in tabular figures. Headers
// are uppercase; Greek letters in them (κ, α, ρ, π) keep their case.
export function Table({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div className={cn("overflow-x-auto", className)}>
      <table className="w-full border-collapse text-[13px]">{children}</table>
    </div>
  );
}
export function Th({ children, numeric, className }: { children?: ReactNode; numeric?: boolean; className?: string }) {
  return (
    <th
      scope="col"
      className={cn(
        "sticky top-0 border-b border-border bg-bg-subtle px-2 py-1.5 text-left text-[11px] font-medium uppercase tracking-wide text-fg-muted",
        numeric && "text-right",
        className,
      )}
    >
      {keepSymbols(children)}
    </th>
  );
}
export function Td({
  children,
  numeric,
  className,
  ...rest
}: {
  children?: ReactNode;
  numeric?: boolean;
  className?: string;
  title?: string;
  "data-testid"?: string;
  colSpan?: number;
}) {
  return (
    <td {...rest} className={cn("border-b border-border px-2 py-1 align-top", numeric && "num text-right", className)}>
      {children}
    </td>
  );
}
/** One column of a header row: its label, or the label of a numeric (right-aligned) column. */
export type HeadCol = string | { label: string; numeric: true };

/** The header columns of numeric (right-aligned) columns, in order, from their labels. */
export function numeric(...labels: string[]): HeadCol[] {
  return labels.map((label) => ({ label, numeric: true }));
}

/** A table's header row from its column labels. */
export function Head({ cols }: { cols: readonly HeadCol[] }) {
  return (
    <thead>
      <tr>
        {cols.map((c) =>
          typeof c === "string" ? (
            <Th key={c}>{c}</Th>
          ) : (
            <Th key={c.label} numeric>
              {c.label}
            </Th>
          ),
        )}
      </tr>
    </thead>
  );
}
