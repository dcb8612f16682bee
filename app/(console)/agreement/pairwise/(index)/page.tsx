import type { Metadata } from "next";
import Link from "next/link";
import { Shown } from "@/components/agreement/figure.tsx";
import {
  BetweenAnnotators,
  BreakdownTable,
  InversionTable,
  PairTally,
  PositionBias,
} from "@/components/pairwise/report-tables.tsx";
import { Card, Stat } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { loadPairReportItems, MAX_REPORT_PAIRS } from "@/lib/pairwise/report-data.ts";
import { buildPairReport } from "@/lib/pairwise/report.ts";
import { pairReportQuery, parsePairReportFilter } from "@/lib/pairwise/report-schema.ts";

export const metadata: Metadata = { title: "Pairwise report" };

// The pairwise report of one batch or one run: does the human order each pair as the ledger does? Readers of the
// ledger only (annotators never reach it: it shows the ledger rewards of pairs they may not have judged yet).
export default async function PairReportPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageUser("ledger.read");
  const parsed = parsePairReportFilter(await searchParams);
  const header = <PageHeader title="Pairwise report" />;
  if (!parsed.ok)
    return (
      <>
        {header}
        <EmptyState title="This link has a bad parameter">
          {parsed.errors.join("; ")}.{" "}
          <Link className="text-accent" href="/audit">
            Pick a pairwise batch on the audit page
          </Link>
        </EmptyState>
      </>
    );
  const f = parsed.filter;
  const data = await loadPairReportItems(f);
  if (!data.ok)
    return (
      <>
        {header}
        <EmptyState title="Nothing to report">
          {data.error}.{" "}
          <Link className="text-accent" href="/audit">
            Back to the audit
          </Link>
        </EmptyState>
      </>
    );
  const basis = f.basis ?? "reviewed";
  const r = buildPairReport(data.items, { basis, delta: data.scope.delta, window: f.window });
  const scopeName = data.scope.batch ? `batch ${data.scope.batch.name}` : `run ${data.scope.runId}`;
  const o = r.overall;
  const other = basis === "now" ? "reviewed" : "now";
  return (
    <>
      <PageHeader
        title={`Pairwise report · ${scopeName}`}
        description={`Does the human order two rollouts of a GRPO group as the ledger does? Ordering agreement = judgements preferring the higher-rewarded rollout over those preferring either; ties apart. Ledger ${basis === "now" ? "as it is now (current entries)" : "as when reviewed (the entries recorded on each pair)"}. Intervals are 95%; below 30 judgements a figure reads "too few to say".`}
        actions={
          <div className="flex gap-2 text-[12px]">
            <Link
              className="rounded border border-border px-2 py-1"
              href={`/agreement/pairwise?${pairReportQuery({ ...f, basis: other })}`}
            >
              Ledger {other === "now" ? "as now" : "as reviewed"}
            </Link>
            <a
              className="rounded border border-border px-2 py-1"
              href={`/api/agreement/pairwise?${pairReportQuery(f)}`}
            >
              JSON
            </a>
          </div>
        }
      />
      {data.truncated && (
        <p role="status" className="mb-3 text-[12px] text-warn">
          Only the first {MAX_REPORT_PAIRS} judged pairs are counted: name one batch for its full report.
        </p>
      )}
      {r.pairs === 0 ? (
        <EmptyState title="No counted judgement yet">
          The report appears once annotators have judged pairs of a pairwise batch of {scopeName}.
        </EmptyState>
      ) : (
        <div className="space-y-4">
          <div className="grid grid-cols-2 gap-2 md:grid-cols-5">
            <Stat
              label="Ordering agreement"
              value={<Shown fig={o.agreement} testId="pair-agreement" detail={false} />}
              hint={o.agreement.detail}
            />
            {o.weighted && (
              <Stat
                label="Agreement, weighted 1/π"
                value={<Shown fig={o.weighted} testId="pair-agreement-weighted" detail={false} />}
                hint={o.weighted.detail}
              />
            )}
            <Stat
              label="Ties"
              value={<Shown fig={o.tieShare} testId="pair-ties" detail={false} />}
              hint={`${o.tieShare.detail} · ${o.unordered} pairs the ledger does not order`}
            />
            <Stat
              label="Inversions"
              value={<span data-testid="pair-inversion-count">{r.inversions.length}</span>}
              hint={`${o.inversions} primary judgements`}
            />
            <Stat
              label="κ between annotators"
              value={<Shown fig={r.betweenAnnotators.kappa} detail={false} />}
              hint={`${r.betweenAnnotators.pairs} overlap pairs · AC1 ${r.betweenAnnotators.ac1.label}`}
            />
          </div>
          <p className="text-[12px] text-fg-muted" data-testid="pair-weighting-note">
            {r.stratified
              ? "Pairs had unequal inclusion probabilities (a stratified or topped-up batch): the figure marked “weighted 1/π” counts each pair by its inverse inclusion probability and estimates the run; the others are of the sample."
              : "Every pair had the same inclusion probability, so the sample's figures are unweighted estimates of the run."}{" "}
            {r.excluded > 0 &&
              `${r.excluded} judgements are recorded but not counted (their author could have seen a ledger number).`}
          </p>
          <div className="grid gap-4 xl:grid-cols-2">
            <Card title={`Inversions, largest reward gap first (${r.inversions.length})`} className="xl:col-span-2">
              <InversionTable r={r} />
            </Card>
            <Card title="Inversions by cause (adjudication)">
              <PairTally r={r} />
            </Card>
            <Card title="Position bias">
              <PositionBias r={r} />
            </Card>
            <Card title={`By reward gap (δ = ${r.delta})`}>
              <BreakdownTable rows={r.byGap} head="Gap" testId="pair-by-gap" />
            </Card>
            <Card title="By deciding guardrails (stratum)">
              <BreakdownTable rows={r.byStratum} head="Stratum" testId="pair-by-stratum" />
            </Card>
            <Card title="By category">
              <BreakdownTable rows={r.byCategory} head="Category" testId="pair-by-category" />
            </Card>
            <Card title={`By step window (${r.window} steps)`}>
              <BreakdownTable rows={r.byWindow} head="Steps" testId="pair-by-window" />
            </Card>
            <Card title="Between annotators (overlap pairs)" className="xl:col-span-2">
              <BetweenAnnotators r={r} />
            </Card>
          </div>
        </div>
      )}
    </>
  );
}
