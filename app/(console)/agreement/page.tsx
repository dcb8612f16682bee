import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { AgreementScatter, AgreementTrend } from "@/components/agreement/charts.tsx";
import { AgreementFilterBar } from "@/components/agreement/filter-bar.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Card, Stat } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { agreementFacets } from "@/lib/agreement/facets.ts";
import { buildAgreementReport } from "@/lib/agreement/report.ts";
import { filterQuery, parseAgreementFilter, type AgreementFilter } from "@/lib/agreement/schema.ts";
import { CAUSE_LABELS } from "@/lib/audit/causes.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { describeRate } from "@/lib/stats/small-sample.ts";

export const metadata: Metadata = { title: "Agreement" };

const n3 = (v: number | null | undefined) => (v === null || v === undefined ? "–" : v.toFixed(3));
const pct = (v: number | null | undefined) => (v === null || v === undefined ? "–" : `${(v * 100).toFixed(0)}%`);

function ItemsLink({ f, cell, guardrail, children }: { f: AgreementFilter; cell: string; guardrail?: string; children: ReactNode }) {
  const q = filterQuery({ ...f, ...(guardrail ? { guardrail: guardrail as AgreementFilter["guardrail"] } : {}) }, { cell });
  return (
    <Link className="text-accent hover:underline" href={`/agreement/items?${q}`}>
      {children}
    </Link>
  );
}

export default async function AgreementPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  await requirePageUser("ledger.read");
  const parsed = parseAgreementFilter(await searchParams);
  if (!parsed.ok) {
    return (
      <>
        <PageHeader title="Agreement" />
        <EmptyState title="This link has a bad filter">
          {parsed.errors.join("; ")}. <Link className="text-accent" href="/agreement">Clear the filters</Link>
        </EmptyState>
      </>
    );
  }
  const f = parsed.filter;
  const [items, facets] = await Promise.all([loadAgreementItems(f), agreementFacets()]);
  const r = buildAgreementReport(items, f);
  const h = r.headline;
  return (
    <>
      <PageHeader
        title="Agreement"
        description={`Blind human shadow scores against the ledger. Agreement = |human − ledger| ≤ ${r.tolerance}; intervals are 95%.`}
        actions={
          <a className="rounded border border-border px-2 py-1 text-[12px]" href={`/api/agreement?${filterQuery(f)}`}>
            JSON
          </a>
        }
      />
      <AgreementFilterBar f={f} {...facets} />
      {r.items === 0 ? (
        <EmptyState title="No reviewed items under these filters">Agreement appears once annotators have reviewed items of an audit batch.</EmptyState>
      ) : (
        <div className="space-y-4">
          <div className="grid grid-cols-2 gap-2 md:grid-cols-5">
            <Stat
              label="Agreement"
              value={<span data-testid="headline">{h.label}</span>}
              hint={
                <ItemsLink f={f} cell="agree">
                  {h.detail}
                </ItemsLink>
              }
            />
            {r.weighted && (
              <Stat label="Weighted (strata)" value={pct(r.weighted.estimate)} hint={`effective n ${r.weighted.nEffective.toFixed(1)} · ${pct(r.weighted.interval.lower)}–${pct(r.weighted.interval.upper)}`} />
            )}
            <Stat
              label="Disagreements"
              value={<ItemsLink f={f} cell="disagree">{h.n - h.k}</ItemsLink>}
              hint={<ItemsLink f={f} cell="adjudicated">{r.causes.reduce((s, c) => s + c.count, 0)} adjudicated</ItemsLink>}
            />
            <Stat label="κ success verdict" value={n3(r.verdict?.kappa)} hint={r.verdict?.interval ? `${n3(r.verdict.interval.lower)} to ${n3(r.verdict.interval.upper)} (bootstrap)` : "undefined here"} />
            <Stat
              label="α between annotators"
              value={n3(r.interAnnotator.rewardAlpha)}
              hint={`${r.interAnnotator.items} overlap items${r.interAnnotator.rewardAlphaInterval ? ` · ${n3(r.interAnnotator.rewardAlphaInterval.lower)} to ${n3(r.interAnnotator.rewardAlphaInterval.upper)}` : ""}`}
            />
          </div>
          <div className="grid gap-4 xl:grid-cols-2">
            <Card title="Human against ledger">
              <AgreementScatter points={r.scatter} tolerance={r.tolerance} />
            </Card>
            <Card title="Agreement over time">
              <AgreementTrend points={r.trend} />
            </Card>
            <Card title={`Success verdict (reward ≥ ${r.verdict?.threshold ?? 0.9})`}>
              {r.verdict ? (
                <Table>
                  <thead>
                    <tr>
                      <Th />
                      <Th numeric>human: success</Th>
                      <Th numeric>human: not</Th>
                    </tr>
                  </thead>
                  <tbody>
                    <tr>
                      <Td>ledger: success</Td>
                      <Td numeric>{r.verdict.matrix[0][0]}</Td>
                      <Td numeric>
                        <ItemsLink f={f} cell="verdict_ledger_only">{r.verdict.matrix[0][1]}</ItemsLink>
                      </Td>
                    </tr>
                    <tr>
                      <Td>ledger: not</Td>
                      <Td numeric>
                        <ItemsLink f={f} cell="verdict_human_only">{r.verdict.matrix[1][0]}</ItemsLink>
                      </Td>
                      <Td numeric>{r.verdict.matrix[1][1]}</Td>
                    </tr>
                  </tbody>
                </Table>
              ) : (
                <p className="px-3 py-2 text-fg-muted">κ is undefined: both sides gave one verdict only.</p>
              )}
            </Card>
            <Card title="Per dimension">
              <Table>
                <thead>
                  <tr>
                    <Th>Sub-score</Th>
                    <Th numeric>n</Th>
                    <Th numeric>Mean |human − ledger|</Th>
                    <Th numeric>Spearman ρ</Th>
                  </tr>
                </thead>
                <tbody>
                  {r.dimensions.map((d) => (
                    <tr key={d.dimension}>
                      <Td>{d.dimension}</Td>
                      <Td numeric>{d.n}</Td>
                      <Td numeric>{n3(d.mae)}</Td>
                      <Td numeric>{n3(d.spearman)}</Td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </Card>
            <Card title="Per guardrail: where the ledger fires and humans do not, and the reverse" className="xl:col-span-2">
              <Table>
                <thead>
                  <tr>
                    <Th>Guardrail</Th>
                    <Th numeric>Both</Th>
                    <Th numeric>Ledger only</Th>
                    <Th numeric>Human only</Th>
                    <Th numeric>Precision</Th>
                    <Th numeric>Recall</Th>
                    <Th numeric>κ</Th>
                    <Th numeric>Agreement</Th>
                  </tr>
                </thead>
                <tbody>
                  {r.guardrails.map((g) => {
                    const a = describeRate({ k: g.tp + g.tn, n: g.n });
                    return (
                      <tr key={g.code} data-testid={`guardrail-row-${g.code}`}>
                        <Td>
                          <Badge tone="warn">{g.code}</Badge>
                        </Td>
                        <Td numeric>
                          <ItemsLink f={f} cell="guardrail_both" guardrail={g.code}>{g.tp}</ItemsLink>
                        </Td>
                        <Td numeric>
                          <ItemsLink f={f} cell="guardrail_ledger_only" guardrail={g.code}>{g.fp}</ItemsLink>
                        </Td>
                        <Td numeric>
                          <ItemsLink f={f} cell="guardrail_human_only" guardrail={g.code}>{g.fn}</ItemsLink>
                        </Td>
                        <Td numeric>{pct(g.precision)}</Td>
                        <Td numeric>{pct(g.recall)}</Td>
                        <Td numeric>{n3(g.kappa)}</Td>
                        <Td numeric title={a.detail}>{a.label}</Td>
                      </tr>
                    );
                  })}
                </tbody>
              </Table>
            </Card>
            <Card title="Annotator calibration">
              <Table>
                <thead>
                  <tr>
                    <Th>Annotator</Th>
                    <Th numeric>Reviews</Th>
                    <Th numeric>Agrees with ledger</Th>
                    <Th numeric>MAE</Th>
                    <Th numeric>Adjudicated</Th>
                    <Th numeric>Upheld</Th>
                  </tr>
                </thead>
                <tbody>
                  {r.annotators.map((a) => (
                    <tr key={a.email}>
                      <Td>
                        <Link className="text-accent hover:underline" href={`/agreement?${filterQuery({ ...f, annotator: a.email })}`}>
                          {a.email}
                        </Link>
                      </Td>
                      <Td numeric>{a.n}</Td>
                      <Td numeric title={a.agreement.detail}>{a.agreement.label}</Td>
                      <Td numeric>{n3(a.mae)}</Td>
                      <Td numeric>{a.adjudicatedDisagreements}</Td>
                      <Td numeric title="share of adjudicated disagreements not blamed on the annotator">{pct(a.upheld)}</Td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </Card>
            <Card title="Disagreements by cause (adjudication)">
              <Table>
                <tbody>
                  {r.causes.map((c) => (
                    <tr key={c.cause}>
                      <Td>{CAUSE_LABELS[c.cause]}</Td>
                      <Td numeric>{c.count}</Td>
                    </tr>
                  ))}
                </tbody>
              </Table>
              {r.causesByGuardrail.length > 0 && (
                <p className="px-3 py-2 text-[12px] text-fg-muted">
                  By guardrail: {r.causesByGuardrail.map((c) => `${c.guardrail} ${c.count}`).join(" · ")}
                </p>
              )}
            </Card>
            <Card title="Claims extraction against human labels" className="xl:col-span-2">
              {r.extraction.overall ? (
                <>
                  <p className="px-3 py-2">
                    Overall pairwise accuracy{" "}
                    <b>{pct(r.extraction.overall.accuracy.estimate)}</b> ({r.extraction.overall.correct} of {r.extraction.overall.n} slots, 95%{" "}
                    {pct(r.extraction.overall.accuracy.lower)}–{pct(r.extraction.overall.accuracy.upper)}){" "}
                    {r.extraction.belowThreshold ? <Badge tone="bad">below 0.85</Badge> : <Badge tone="good">at or above 0.85</Badge>}
                  </p>
                  <Table>
                    <thead>
                      <tr>
                        <Th>Slot</Th>
                        <Th numeric>Correct</Th>
                        <Th numeric>n</Th>
                        <Th numeric>Accuracy</Th>
                      </tr>
                    </thead>
                    <tbody>
                      {r.extraction.slots.map((s) => (
                        <tr key={s.slot}>
                          <Td className="font-mono text-[12px]">{s.slot}</Td>
                          <Td numeric>{s.correct}</Td>
                          <Td numeric>{s.n}</Td>
                          <Td numeric>{s.belowThreshold ? <Badge tone="bad">{pct(s.accuracy.estimate)}</Badge> : pct(s.accuracy.estimate)}</Td>
                        </tr>
                      ))}
                    </tbody>
                  </Table>
                </>
              ) : (
                <p className="px-3 py-2 text-fg-muted">No ledger claims to compare with.</p>
              )}
            </Card>
          </div>
        </div>
      )}
    </>
  );
}
