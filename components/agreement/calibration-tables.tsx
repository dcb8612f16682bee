import Link from "next/link";
import { ItemsLink, pctRange, Shown } from "@/components/agreement/figure.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import type { AgreementReport } from "@/lib/agreement/report.ts";
import { filterQuery, type AgreementFilter } from "@/lib/agreement/schema.ts";
import { CAUSE_LABELS } from "@/lib/agreement/causes.ts";

type Props = { r: AgreementReport; f: AgreementFilter };

/** Each annotator against the ledger and against adjudicated outcomes. */
export function AnnotatorTable({ r, f }: Props) {
  return (
    <Table>
      <Head cols={["Annotator", ...numeric("Reviews", "Agrees with ledger", "MAE", "Adjudicated", "Upheld")]} />
      <tbody>
        {r.annotators.map((a) => (
          <tr key={a.email} data-testid="annotator-row">
            <Td>
              <Link
                className="text-accent hover:underline"
                href={`/agreement?${filterQuery({ ...f, annotator: a.email })}`}
                title="Filter the report by this annotator"
              >
                {a.email}
              </Link>
            </Td>
            <Td numeric>
              <ItemsLink f={f} cell={{ cell: "annotator", reviewer: a.email }}>
                {a.n}
              </ItemsLink>
            </Td>
            <Td numeric>
              <Shown fig={a.agreement} />
            </Td>
            <Td numeric>
              <Shown fig={a.maeFigure} />
            </Td>
            <Td numeric>
              <ItemsLink f={f} cell={{ cell: "annotator_adjudicated", reviewer: a.email }}>
                {a.adjudicatedDisagreements}
              </ItemsLink>
            </Td>
            <Td numeric>
              <span title="share of adjudicated disagreements not blamed on the annotator">
                <Shown fig={a.upheldFigure} />
              </span>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** The disagreement tally by cause from adjudication; each count links to its items. */
export function CauseTable({ r, f }: Props) {
  return (
    <>
      <Table>
        <tbody data-testid="cause-tally">
          {r.causes.map((c) => (
            <tr key={c.cause}>
              <Td>{CAUSE_LABELS[c.cause]}</Td>
              <Td numeric>
                <ItemsLink f={f} cell={{ cell: "cause", cause: c.cause }}>
                  {c.count}
                </ItemsLink>
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
      {r.causesByGuardrail.length > 0 && (
        <p className="px-3 py-2 text-[12px] text-fg-muted">
          By guardrail: {r.causesByGuardrail.map((c) => `${c.guardrail} ${c.count}`).join(" · ")}
        </p>
      )}
    </>
  );
}

/** Extraction accuracy of the claims extractor against the annotators' labels, overall and per slot, with intervals. */
export function ExtractionTable({ r, f }: Props) {
  const ex = r.extraction;
  if (!ex.overall) return <p className="px-3 py-2 text-fg-muted">No ledger claims to compare with.</p>;
  return (
    <>
      <p className="px-3 py-2">
        Overall extraction accuracy{" "}
        <b>
          <Shown fig={ex.overallFigure} detail={false} />
        </b>{" "}
        ({ex.overallFigure.detail}){" "}
        {ex.overallFigure.tooFew ? null : ex.belowThreshold ? (
          <Badge tone="bad">below 0.85</Badge>
        ) : (
          <Badge tone="good">at or above 0.85</Badge>
        )}
      </p>
      <Table>
        <Head cols={["Slot", ...numeric("n", "Wrong", "Accuracy", "95% CI")]} />
        <tbody>
          {ex.slots.map((s) => (
            <tr key={s.slot} data-testid="extraction-slot">
              <Td className="font-mono text-[12px]">{s.slot}</Td>
              <Td numeric>
                <ItemsLink f={f} cell={{ cell: "extraction_slot", slot: s.slot }}>
                  {s.n}
                </ItemsLink>
              </Td>
              <Td numeric>
                <ItemsLink f={f} cell={{ cell: "extraction_slot_wrong", slot: s.slot }}>
                  {s.n - s.correct}
                </ItemsLink>
              </Td>
              <Td numeric>
                {s.belowThreshold && !s.figure.tooFew ? (
                  <Badge tone="bad">{s.figure.label}</Badge>
                ) : (
                  <Shown fig={s.figure} detail={false} />
                )}
              </Td>
              <Td numeric>{pctRange(s.accuracy)}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </>
  );
}

/** The trend's points as text: each day's guarded rate and the items behind it. */
export function TrendDays({ r, f }: Props) {
  return (
    <details className="px-3 pb-2 text-[12px]">
      <summary className="cursor-pointer text-fg-muted">Per day ({r.trend.length})</summary>
      <ul className="mt-1 space-y-0.5" data-testid="trend-days">
        {r.trend.map((t) => (
          <li key={t.day} className="flex gap-2">
            <span className="font-mono">{t.day}</span>
            <span>{t.label}</span>
            <span className="text-fg-muted">{t.detail}</span>
            <ItemsLink f={f} cell={{ cell: "day", day: t.day }}>
              {t.n} item{t.n === 1 ? "" : "s"}
            </ItemsLink>
          </li>
        ))}
      </ul>
    </details>
  );
}
