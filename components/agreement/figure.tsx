import Link from "next/link";
import type { ReactNode } from "react";
import type { Figure } from "@/lib/agreement/figures.ts";
import { filterQuery, type AgreementCellSelection, type AgreementFilter } from "@/lib/agreement/schema.ts";

/**
 * A guarded figure: its label ("88%", "0.712", "too few to say"), with n and the interval underneath whenever the
 * label cannot stand alone (too few items), and always in the tooltip.
 */
export function Shown({ fig, testId, detail = true }: { fig: Figure; testId?: string; detail?: boolean }) {
  return (
    <span title={fig.detail} data-too-few={fig.tooFew ? "true" : undefined}>
      <span data-testid={testId}>{fig.label}</span>
      {detail && fig.tooFew && <span className="block text-[11px] font-normal text-fg-muted">{fig.detail}</span>}
    </span>
  );
}

/** A link to the items behind a figure: every active filter is kept and the cell is added. */
export function ItemsLink({
  f,
  cell,
  children,
}: {
  f: AgreementFilter;
  cell: AgreementCellSelection;
  children: ReactNode;
}) {
  return (
    <Link className="text-accent hover:underline" href={`/agreement/items?${filterQuery(f, cell)}`}>
      {children}
    </Link>
  );
}

export const pctRange = (iv: { lower: number; upper: number } | null | undefined) =>
  iv ? `${(iv.lower * 100).toFixed(0)}–${(iv.upper * 100).toFixed(0)}%` : "–";
