import type { ReactNode } from "react";
import { ItemsLink, Shown } from "@/components/agreement/figure.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Head, Table, Td, Th, numeric } from "@/components/ui/table.tsx";
import type { Figure } from "@/lib/agreement/figures.ts";
import type { AgreementReport } from "@/lib/agreement/report.ts";
import type { AgreementFilter } from "@/lib/agreement/schema.ts";

type Props = { r: AgreementReport; f: AgreementFilter };

/** The success-verdict confusion matrix; every cell, the diagonal included, links to its items. */
export function VerdictMatrix({ r, f }: Props) {
  if (!r.verdict) return <p className="px-3 py-2 text-fg-muted">No item was compared with the ledger.</p>;
  const m = r.verdict.matrix;
  return (
    <Table>
      <thead>
        <tr>
          <Th />
          <Th numeric>human: success</Th>
          <Th numeric>human: not</Th>
        </tr>
      </thead>
      <tbody data-testid="verdict-matrix">
        <tr>
          <Td>ledger: success</Td>
          <Td numeric>
            <ItemsLink f={f} cell={{ cell: "verdict_both" }}>
              {m[0][0]}
            </ItemsLink>
          </Td>
          <Td numeric>
            <ItemsLink f={f} cell={{ cell: "verdict_ledger_only" }}>
              {m[0][1]}
            </ItemsLink>
          </Td>
        </tr>
        <tr>
          <Td>ledger: not</Td>
          <Td numeric>
            <ItemsLink f={f} cell={{ cell: "verdict_human_only" }}>
              {m[1][0]}
            </ItemsLink>
          </Td>
          <Td numeric>
            <ItemsLink f={f} cell={{ cell: "verdict_neither" }}>
              {m[1][1]}
            </ItemsLink>
          </Td>
        </tr>
      </tbody>
    </Table>
  );
}

/** Mean absolute error and Spearman's ρ per sub-score; n links to the items compared. */
export function DimensionTable({ r, f }: Props) {
  return (
    <Table>
      <Head cols={["Sub-score", ...numeric("n", "Mean |human − ledger|", "Spearman ρ")]} />
      <tbody>
        {r.dimensions.map((d) => (
          <tr key={d.dimension} data-testid={`dimension-row-${d.dimension}`}>
            <Td>{d.dimension}</Td>
            <Td numeric>
              <ItemsLink f={f} cell={{ cell: "dimension", dimension: d.dimension }}>
                {d.n}
              </ItemsLink>
            </Td>
            <Td numeric>
              <Shown fig={d.figures.mae} />
            </Td>
            <Td numeric>
              <Shown fig={d.figures.spearman} />
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/**
 * Per guardrail: where the ledger fires and humans do not, and the reverse. Counts link to their items within the
 * active filters. On a stratified sample the agreement and κ are also given weighted by 1/π.
 */
export function GuardrailTable({ r, f }: Props) {
  const filtered = r.guardrails.find((g) => g.filteredOn);
  return (
    <>
      {filtered && (
        <p className="px-3 py-2 text-[12px] text-fg-muted" data-testid="guardrail-filtered-note">
          Filtered on {filtered.code}: every item here is one the ledger or a reviewer flags with it, so its row has no
          true negative by construction — κ, AC1, PABAK and negative agreement are not defined for it; read its
          precision, recall and positive agreement.
        </p>
      )}
      <Table>
        <thead>
          <tr>
            <Th>Guardrail</Th>
            <Th numeric>Both</Th>
            <Th numeric>Ledger only</Th>
            <Th numeric>Human only</Th>
            <Th numeric>Precision</Th>
            <Th numeric>Recall</Th>
            <Th numeric>Positive agreement</Th>
            <Th numeric>Negative agreement</Th>
            <Th numeric>Flagged: ledger / human</Th>
            <Th numeric>κ</Th>
            <Th numeric>AC1</Th>
            <Th numeric>PABAK</Th>
            <Th numeric>Agreement</Th>
            {r.stratified && <Th numeric>Agreement (weighted 1/π)</Th>}
            {r.stratified && <Th numeric>κ (weighted 1/π)</Th>}
          </tr>
        </thead>
        <tbody>
          {r.guardrails.map((g) => (
            <tr key={g.code} data-testid={`guardrail-row-${g.code}`}>
              <Td>
                <Badge tone="warn">{g.code}</Badge>
              </Td>
              <Td numeric>
                <ItemsLink f={f} cell={{ cell: "guardrail_both", code: g.code }}>
                  {g.tp}
                </ItemsLink>
              </Td>
              <Td numeric>
                <ItemsLink f={f} cell={{ cell: "guardrail_ledger_only", code: g.code }}>
                  {g.fp}
                </ItemsLink>
              </Td>
              <Td numeric>
                <ItemsLink f={f} cell={{ cell: "guardrail_human_only", code: g.code }}>
                  {g.fn}
                </ItemsLink>
              </Td>
              <Td numeric>
                <Shown fig={g.figures.precision} />
              </Td>
              <Td numeric>
                <Shown fig={g.figures.recall} />
              </Td>
              <Td numeric>
                <Read when={g.read === "specific"}>
                  <Shown fig={g.figures.positiveAgreement} />
                </Read>
              </Td>
              <Td numeric>
                <Defined fig={g.figures.negativeAgreement} filteredOn={g.filteredOn}>
                  <Read when={g.read === "specific"}>
                    <Shown fig={g.figures.negativeAgreement} />
                  </Read>
                </Defined>
              </Td>
              <Td numeric>
                <span title={`n = ${g.prevalence.n}`}>
                  {share(g.prevalence.ledger)} / {share(g.prevalence.human)}
                </span>
              </Td>
              <Td numeric>
                <Defined fig={g.figures.kappa} filteredOn={g.filteredOn}>
                  <Read when={g.read === "kappa"}>
                    <Shown fig={g.figures.kappa} />
                  </Read>
                </Defined>
              </Td>
              <Td numeric>
                <Defined fig={g.figures.ac1} filteredOn={g.filteredOn}>
                  <Shown fig={g.figures.ac1} />
                </Defined>
              </Td>
              <Td numeric>
                <Defined fig={g.figures.pabak} filteredOn={g.filteredOn}>
                  <Shown fig={g.figures.pabak} />
                </Defined>
              </Td>
              <Td numeric>
                <Shown fig={g.figures.agreement} />
              </Td>
              {r.stratified && <Td numeric>{g.weighted ? <Shown fig={g.weighted.agreement} /> : "–"}</Td>}
              {r.stratified && <Td numeric>{g.weighted ? <Shown fig={g.weighted.kappa} /> : "–"}</Td>}
            </tr>
          ))}
        </tbody>
      </Table>
    </>
  );
}

/**
 * A figure of the guardrail the report is filtered on: "not defined" (the note above the table says why, the title
 * repeats it) instead of the reason in every cell.
 */
function Defined({ fig, filteredOn, children }: { fig: Figure; filteredOn: boolean; children: ReactNode }) {
  return filteredOn && fig.value === null ? (
    <span title={fig.undefinedReason ?? undefined} data-filtered-on="true">
      not defined
    </span>
  ) : (
    <>{children}</>
  );
}

/** A share as a whole percentage, "–" when there is none. */
function share(x: number | null): string {
  return x === null ? "–" : `${Math.round(x * 100)}%`;
}

/** Marks the coefficient to read at this prevalence. */
function Read({ when, children }: { when: boolean; children: ReactNode }) {
  return when ? (
    <b title="the coefficient to read at this prevalence" data-read="true">
      {children}
    </b>
  ) : (
    <>{children}</>
  );
}

/** How an interval is taken where every item agrees (the variance and the bootstrap cannot vary there). */
const PERFECT = "; where every item agrees, Wilson's interval of p_o carried through p_e";

/** One coefficient's row: its value, its 95% interval and how the interval is computed. */
function CoefficientRow({
  name,
  fig,
  method,
  read,
  testId,
}: {
  name: string;
  fig: Figure;
  method: string;
  read: boolean;
  testId: string;
}) {
  return (
    <tr data-testid={testId}>
      <Td>
        {name}
        {read && (
          <>
            {" "}
            <Badge tone="accent">read this</Badge>
          </>
        )}
      </Td>
      <Td numeric>
        <Read when={read}>
          <Shown fig={fig} />
        </Read>
      </Td>
      <Td numeric>{fig.interval ? `${fig.interval.lower.toFixed(3)} to ${fig.interval.upper.toFixed(3)}` : "–"}</Td>
      <Td className="text-fg-muted">{method}</Td>
    </tr>
  );
}

/**
 * The success verdict's agreement beyond chance: Cohen's κ, Gwet's AC1 and PABAK with their intervals, positive and
 * negative agreement (each class on its own), the prevalence on each side and n, and what to read at that prevalence.
 */
export function VerdictCoefficients({ r }: { r: AgreementReport }) {
  const v = r.verdict;
  if (!v) return <p className="px-3 py-2 text-[12px] text-fg-muted">No item has a verdict on both sides.</p>;
  return (
    <>
      <p className="px-3 py-2" data-testid="verdict-prevalence">
        The ledger passes <b>{share(v.prevalence.ledger)}</b> of these items, the human side{" "}
        <b>{share(v.prevalence.human)}</b> · n = {v.prevalence.n}
      </p>
      <Table>
        <Head cols={["Coefficient", ...numeric("Value", "95% interval"), "Interval"]} />
        <tbody>
          <CoefficientRow
            name="Cohen's κ"
            fig={v.figure}
            method={`percentile bootstrap over items${PERFECT}`}
            read={v.read === "kappa"}
            testId="verdict-kappa"
          />
          <CoefficientRow
            name="Gwet's AC1"
            fig={v.ac1}
            method={`Gwet's variance, t with n − 1 df${PERFECT}`}
            read={false}
            testId="verdict-ac1"
          />
          <CoefficientRow
            name="PABAK"
            fig={v.pabak}
            method={`2·p_o − 1, t with n − 1 df${PERFECT}`}
            read={false}
            testId="verdict-pabak"
          />
          <CoefficientRow
            name="Positive agreement (successes)"
            fig={v.positiveAgreement}
            method="2a / (2a + b + c); Wilson over the items either side passes"
            read={v.read === "specific"}
            testId="verdict-positive-agreement"
          />
          <CoefficientRow
            name="Negative agreement (failures)"
            fig={v.negativeAgreement}
            method="2d / (2d + b + c); Wilson over the items either side fails"
            read={v.read === "specific"}
            testId="verdict-negative-agreement"
          />
        </tbody>
      </Table>
      <p className="px-3 py-2 text-[12px] text-fg-muted" data-testid="prevalence-note">
        {r.prevalenceNote}
      </p>
    </>
  );
}

/** Krippendorff's α between annotators on overlap items: interval for the reward, nominal for each guardrail flag. */
export function InterAnnotatorTable({ r, f }: Props) {
  const ia = r.interAnnotator;
  return (
    <>
      <p className="px-3 py-2">
        Reward (interval α):{" "}
        <b>
          <Shown fig={ia.rewardAlphaFigure} />
        </b>{" "}
        over{" "}
        <ItemsLink f={f} cell={{ cell: "overlap" }}>
          {ia.items} overlap item{ia.items === 1 ? "" : "s"}
        </ItemsLink>
      </p>
      <p className="px-3 pb-2" data-testid="inter-annotator-verdict">
        Success verdict: AC1{" "}
        <b>
          <Shown fig={ia.verdict.ac1} />
        </b>{" "}
        · PABAK{" "}
        <b>
          <Shown fig={ia.verdict.pabak} />
        </b>
      </p>
      {ia.guardrails.length > 0 ? (
        <Table>
          <Head cols={["Guardrail flag", ...numeric("Overlap items", "Nominal α", "AC1")]} />
          <tbody data-testid="guardrail-alpha">
            {ia.guardrails.map((g) => (
              <tr key={g.code}>
                <Td>
                  <Badge tone="warn">{g.code}</Badge>
                </Td>
                <Td numeric>{g.units}</Td>
                <Td numeric>
                  <Shown fig={g.figure} />
                </Td>
                <Td numeric>
                  <Shown fig={g.ac1} />
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : (
        <p className="px-3 pb-2 text-[12px] text-fg-muted">No annotator flagged a guardrail on an overlap item.</p>
      )}
    </>
  );
}
