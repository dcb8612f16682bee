import type { Metadata } from "next";
import Link from "next/link";
import { AnnotatorTable, CauseTable, ExtractionTable, TrendDays } from "@/components/agreement/calibration-tables.tsx";
import { AgreementScatter, AgreementTrend } from "@/components/agreement/charts.tsx";
import { ItemsLink, Shown } from "@/components/agreement/figure.tsx";
import { BasisComparisonCard } from "@/components/agreement/basis-comparison.tsx";
import { ExcludedReviews } from "@/components/agreement/excluded-reviews.tsx";
import { StaleReportNotice } from "@/components/agreement/stale-report.tsx";
import { AgreementFilterBar } from "@/components/agreement/filter-bar.tsx";
import {
  DimensionTable,
  GuardrailTable,
  InterAnnotatorTable,
  VerdictCoefficients,
  VerdictMatrix,
} from "@/components/agreement/report-tables.tsx";
import { Card, Stat } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { loadAgreementPage } from "@/lib/agreement/loaders.ts";
import type { AgreementReport } from "@/lib/agreement/report.ts";
import { filterQuery, parseAgreementFilter, type AgreementFilter } from "@/lib/agreement/schema.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";

export const metadata: Metadata = { title: "Agreement" };

export default async function AgreementPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  await requirePageUser("ledger.read");
  const parsed = parseAgreementFilter(await searchParams);
  if (!parsed.ok) {
    return (
      <>
        <PageHeader title="Agreement" />
        <EmptyState title="This link has a bad filter">
          {parsed.errors.join("; ")}.{" "}
          <Link className="text-accent" href="/agreement">
            Clear the filters
          </Link>
        </EmptyState>
      </>
    );
  }
  const f = parsed.filter;
  const { report: r, asOf, facets, pairBatches, fixes } = await loadAgreementPage(f);
  return (
    <>
      <PageHeader
        title="Agreement"
        description={`Blind human shadow scores against the ledger. Agreement = |human − ledger| ≤ ${r.tolerance}; intervals are 95%; below ${r.minItems} items a figure reads "too few to say".`}
        actions={
          <a className="rounded border border-border px-2 py-1 text-[12px]" href={`/api/agreement?${filterQuery(f)}`}>
            JSON
          </a>
        }
      />
      <AgreementFilterBar f={f} {...facets} />
      <StaleReportNotice asOf={asOf} reloadHref={`/agreement?${filterQuery(f)}`} />
      {pairBatches.length > 0 && <PairwiseReportLinks batches={pairBatches} />}
      {r.items === 0 ? (
        <EmptyState title="No reviewed items under these filters">
          Agreement appears once annotators have reviewed items of an audit batch.
        </EmptyState>
      ) : (
        <div className="space-y-4">
          <HeadlineStats r={r} f={f} />
          {fixes && <BasisComparisonCard c={r.bases} fixes={fixes} f={f} />}
          <p className="text-[12px] text-fg-muted" data-testid="weighting-note">
            {r.stratified
              ? "This sample is stratified (items had unequal inclusion probabilities): the figures marked “weighted 1/π” count each item by its inverse inclusion probability and estimate the run; counts, precision, recall, sub-score, calibration and extraction figures are of the sample, unweighted."
              : "Every item had the same inclusion probability, so the sample's figures are unweighted estimates of the run."}
          </p>
          <ReportCards r={r} f={f} />
        </div>
      )}
      {r.excluded.length > 0 && (
        <Card
          title={`Excluded reviews (${r.excluded.length}): recorded, not counted in any figure above`}
          className="mt-4"
        >
          <p className="mb-2 text-[12px] text-fg-muted">
            A review counts only if its author could not have seen the rollout&apos;s ledger numbers before submitting.
          </p>
          <ExcludedReviews excluded={r.excluded} />
        </Card>
      )}
    </>
  );
}

/** Links to the ordering-agreement reports of the pairwise batches. */
function PairwiseReportLinks({ batches }: { batches: { id: number; name: string }[] }) {
  return (
    <p className="mb-3 text-[12px] text-fg-muted" data-testid="pairwise-reports">
      Ordering agreement of pairwise batches (does the human order a GRPO pair as the ledger does?):{" "}
      {batches.map((b, i) => (
        <span key={b.id}>
          {i > 0 && " · "}
          <Link className="text-accent hover:underline" href={`/agreement/pairwise?batch=${b.id}`}>
            {b.name}
          </Link>
        </span>
      ))}
    </p>
  );
}

/** The headline figures: agreement (and weighted), disagreements, the verdict's κ, α between annotators. */
function HeadlineStats({ r, f }: { r: AgreementReport; f: AgreementFilter }) {
  const h = r.headline;
  return (
    <div className="grid grid-cols-2 gap-2 md:grid-cols-5">
      <Stat
        label="Agreement"
        value={<Shown fig={h} testId="headline" detail={false} />}
        hint={
          <ItemsLink f={f} cell={{ cell: "agree" }}>
            {h.detail}
          </ItemsLink>
        }
      />
      {r.weighted && (
        <Stat
          label="Agreement, weighted 1/π"
          value={<Shown fig={r.weighted.figure} testId="headline-weighted" detail={false} />}
          hint={r.weighted.figure.detail}
        />
      )}
      <Stat
        label="Disagreements"
        value={
          <ItemsLink f={f} cell={{ cell: "disagree" }}>
            {h.n - h.k}
          </ItemsLink>
        }
        hint={
          <ItemsLink f={f} cell={{ cell: "adjudicated" }}>
            {r.causes.reduce((s, c) => s + c.count, 0)} adjudicated
          </ItemsLink>
        }
      />
      <Stat
        label="κ success verdict"
        value={r.verdict ? <Shown fig={r.verdict.figure} detail={false} /> : "not defined"}
        hint={
          r.verdict
            ? `${r.verdict.figure.detail} (bootstrap)${r.verdict.weightedKappa ? ` · weighted 1/π: ${r.verdict.weightedKappa.label} (${r.verdict.weightedKappa.detail})` : ""}`
            : "both sides gave one verdict only"
        }
      />
      <Stat
        label="α between annotators"
        value={<Shown fig={r.interAnnotator.rewardAlphaFigure} detail={false} />}
        hint={`${r.interAnnotator.items} overlap items · ${r.interAnnotator.rewardAlphaFigure.detail}`}
      />
    </div>
  );
}

/** The report's sections, each in its card. */
function ReportCards({ r, f }: { r: AgreementReport; f: AgreementFilter }) {
  return (
    <div className="grid gap-4 xl:grid-cols-2">
      <Card title="Human against ledger">
        <AgreementScatter points={r.scatter} tolerance={r.tolerance} />
      </Card>
      <Card title="Agreement over time">
        <AgreementTrend points={r.trend} />
        <TrendDays r={r} f={f} />
      </Card>
      <Card title={`Success verdict (reward ≥ ${r.verdict?.threshold ?? 0.9})`}>
        <VerdictMatrix r={r} f={f} />
      </Card>
      <Card title="Success verdict beyond chance: κ, AC1 and PABAK">
        <VerdictCoefficients r={r} />
      </Card>
      <Card title="Per dimension">
        <DimensionTable r={r} f={f} />
      </Card>
      <Card title="Per guardrail: where the ledger fires and humans do not, and the reverse" className="xl:col-span-2">
        <GuardrailTable r={r} f={f} />
      </Card>
      <Card title="Between annotators (overlap items)">
        <InterAnnotatorTable r={r} f={f} />
      </Card>
      <Card title="Annotator calibration">
        <AnnotatorTable r={r} f={f} />
      </Card>
      <Card title="Disagreements by cause (adjudication)">
        <CauseTable r={r} f={f} />
      </Card>
      <Card title="Claims extraction against human labels" className="xl:col-span-2">
        <ExtractionTable r={r} f={f} />
      </Card>
    </div>
  );
}
