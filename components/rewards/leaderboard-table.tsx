// The reward leaderboard's table: one row per candidate (the ledger's marked), every column of docs/leaderboard.md,
// each header a link that sorts by it (again: the other way), each row's A / B links picking it for the head to head,
// and per row its per-guardrail and per-category figures behind a disclosure.
import Link from "next/link";
import { Shown } from "@/components/agreement/figure.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import type { Figure } from "@/lib/agreement/figures.ts";
import type { Breakdown } from "@/lib/leaderboard/row.ts";
import type { SortColumn } from "@/lib/leaderboard/build.ts";
import { MISSING_REASONS } from "@/lib/leaderboard/input.ts";
import { leaderboardQueryString, type LeaderboardQuery } from "@/lib/leaderboard/schema.ts";
import type { LeaderboardView, ViewRow } from "@/lib/leaderboard/view.ts";

const href = (q: LeaderboardQuery, over: Partial<Record<keyof LeaderboardQuery, unknown>>) =>
  `/rewards/compare?${leaderboardQueryString(q, over)}`;

const COLUMNS: { label: string; sort?: SortColumn; cell: (r: ViewRow) => React.ReactNode }[] = [
  { label: "Covered", sort: "covered", cell: (r) => <Covered r={r} /> },
  { label: "Failure share", sort: "failureShare", cell: (r) => <Shown fig={r.coverage.failureShare} /> },
  { label: "Agreement", sort: "agreement", cell: (r) => <Shown fig={r.verdict.agreement} testId="agreement" /> },
  { label: "κ", sort: "kappa", cell: (r) => <Stat fig={r.verdict.kappa} /> },
  { label: "AC1", sort: "ac1", cell: (r) => <Stat fig={r.verdict.ac1} /> },
  { label: "PABAK", sort: "pabak", cell: (r) => <Stat fig={r.verdict.pabak} /> },
  { label: "Sensitivity", sort: "sensitivity", cell: (r) => <Shown fig={r.verdict.sensitivity} /> },
  { label: "Specificity", sort: "specificity", cell: (r) => <Shown fig={r.verdict.specificity} /> },
  { label: "MAE", sort: "mae", cell: (r) => <Stat fig={r.reward.mae} /> },
  { label: "Spearman ρ", sort: "spearman", cell: (r) => <Stat fig={r.reward.spearman} /> },
  {
    label: "Ordering",
    sort: "ordering",
    cell: (r) =>
      r.ordering ? (
        <span title={`${r.ordering.ties} human ties, ${r.ordering.unordered} unordered by it`}>
          <Shown fig={r.ordering.agreement} />
        </span>
      ) : (
        <span className="text-fg-muted">no pairwise batch</span>
      ),
  },
  {
    label: "$ / 1,000",
    sort: "cost",
    cell: (r) => (r.cost.costPer1000 === null ? "—" : `$${r.cost.costPer1000.toFixed(3)}`),
  },
  {
    label: "Median latency",
    sort: "latency",
    cell: (r) => (r.cost.medianLatencyMs === null ? "—" : `${Math.round(r.cost.medianLatencyMs)} ms`),
  },
];

/** κ, AC1, MAE, ρ: the label, "not defined" with its reason in the tooltip. */
function Stat({ fig }: { fig: Figure }) {
  if (fig.value === null) return <span title={fig.undefinedReason ?? fig.detail}>not defined</span>;
  return <Shown fig={fig} />;
}

function Covered({ r }: { r: ViewRow }) {
  const missing = MISSING_REASONS.filter((m) => r.coverage.missing[m] > 0);
  return (
    <span>
      {r.coverage.covered} of {r.coverage.items}
      {missing.length > 0 && (
        <span className="block text-[11px] text-fg-muted" data-testid="missing">
          {missing.map((m) => `${r.coverage.missing[m]} ${m.replace("_", " ")}`).join(" · ")}
        </span>
      )}
    </span>
  );
}

function SortHeader({ q, label, sort }: { q: LeaderboardQuery; label: string; sort?: SortColumn }) {
  if (!sort) return <Th numeric>{label}</Th>;
  const active = q.sort === sort;
  const next = active ? (q.dir === "asc" ? "desc" : q.dir === "desc" ? "asc" : undefined) : undefined;
  return (
    <Th numeric>
      <Link
        className={active ? "text-fg underline" : "hover:underline"}
        href={href(q, { sort, dir: active ? (next ?? flip(sort)) : undefined })}
      >
        {label}
        {active ? (q.dir === "asc" ? " ↑" : q.dir === "desc" ? " ↓" : " •") : ""}
      </Link>
    </Th>
  );
}

/** The direction opposite to a column's default (best first). */
const flip = (sort: SortColumn) => (["mae", "failureShare", "cost", "latency"].includes(sort) ? "desc" : "asc");

function RowLabel({ r, canOpenFunctions }: { r: ViewRow; canOpenFunctions: boolean }) {
  return (
    <span className="flex flex-wrap items-center gap-1">
      {r.function && canOpenFunctions ? (
        <Link className="text-accent hover:underline" href={`/rewards/${encodeURIComponent(r.function.name)}`}>
          {r.label}
        </Link>
      ) : (
        <span>{r.label}</span>
      )}
      <Badge tone={r.isLedger ? "accent" : "neutral"}>{r.isLedger ? "ledger" : r.kind}</Badge>
      {r.flagged && (
        <Badge tone="bad" title="the injection probe moved its reward">
          moved by the probe
        </Badge>
      )}
      <span className="text-[11px] text-fg-muted">≥ {r.threshold} passes</span>
    </span>
  );
}

export function LeaderboardTable({
  v,
  q,
  canOpenFunctions,
}: {
  v: LeaderboardView;
  q: LeaderboardQuery;
  canOpenFunctions: boolean;
}) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>Reward</Th>
          {COLUMNS.map((c) => (
            <SortHeader key={c.label} q={q} label={c.label} sort={c.sort} />
          ))}
          <Th>Compare</Th>
        </tr>
      </thead>
      <tbody>
        {v.rows.map((r) => (
          <tr key={r.id} data-testid="leaderboard-row" data-row={r.id} data-ledger={r.isLedger ? "true" : undefined}>
            <Td>
              <RowLabel r={r} canOpenFunctions={canOpenFunctions} />
            </Td>
            {COLUMNS.map((c) => (
              <Td key={c.label} numeric>
                {c.cell(r)}
              </Td>
            ))}
            <Td>
              <span className="flex gap-2 text-[12px]">
                {(["a", "b"] as const).map((side) => {
                  const other = side === "a" ? "b" : "a";
                  const picked = q[side] === r.id;
                  return picked ? (
                    <span key={side} className="font-semibold">
                      {side.toUpperCase()}
                    </span>
                  ) : (
                    <Link
                      key={side}
                      className="text-accent hover:underline"
                      data-testid={`pick-${side}`}
                      href={href(q, { [side]: r.id, [other]: q[other] === r.id ? undefined : q[other], side: "any" })}
                    >
                      as {side.toUpperCase()}
                    </Link>
                  );
                })}
              </span>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function BreakdownTable({ title, slices }: { title: string; slices: readonly Breakdown[] }) {
  if (slices.length === 0) return <p className="text-[12px] text-fg-muted">No {title.toLowerCase()} defined.</p>;
  return (
    <Table>
      <thead>
        <tr>
          <Th>{title}</Th>
          <Th numeric>Items</Th>
          <Th numeric>Covered</Th>
          <Th numeric>Agreement</Th>
          <Th numeric>Sensitivity</Th>
          <Th numeric>Specificity</Th>
        </tr>
      </thead>
      <tbody>
        {slices.map((s) => (
          <tr key={s.key}>
            <Td className="font-mono text-[12px]">{s.key}</Td>
            <Td numeric>{s.items}</Td>
            <Td numeric>{s.covered}</Td>
            <Td numeric>
              <Shown fig={s.agreement} />
            </Td>
            <Td numeric>
              <Shown fig={s.sensitivity} />
            </Td>
            <Td numeric>
              <Shown fig={s.specificity} />
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** Per row, its figures on each guardrail's items and in each category, opened on demand. */
export function LeaderboardBreakdowns({ v }: { v: LeaderboardView }) {
  return (
    <div className="space-y-1 p-2">
      {v.rows.map((r) => (
        <details key={r.id} data-testid="breakdown">
          <summary className="cursor-pointer text-[13px]">
            {r.label}
            {r.isLedger ? " (ledger)" : ""}: {r.guardrails.length} guardrails, {r.categories.length} categories
          </summary>
          <div className="grid gap-3 py-2 xl:grid-cols-2">
            <BreakdownTable title="Guardrail" slices={r.guardrails} />
            <BreakdownTable title="Category" slices={r.categories} />
          </div>
        </details>
      ))}
    </div>
  );
}
