import Link from "next/link";
import { EarlyLate } from "@/components/clusters/cluster-format.tsx";
import { Sparkline } from "@/components/clusters/sparkline.tsx";
import { Card } from "@/components/ui/card.tsx";
import { fmtInt, fmtPct, fmtScore } from "@/components/ui/format.ts";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import { clustersHref, type LinkWindow } from "@/lib/clusters/keys.ts";
import type { ClusterReport } from "@/lib/clusters/report.ts";

/** Sets of two or more guardrails that fired together on low-scoring rollouts, largest first. */
export function CofiredTable({ report, window }: { report: ClusterReport; window: LinkWindow }) {
  if (!report.cofired.length) return null;
  return (
    <Card title="Co-fired guardrail sets (low-scoring rollouts)" className="mb-4">
      <Table>
        <Head
          cols={[
            "Guardrails that fired together",
            ...numeric("Low-scoring rollouts", "Share of all rollouts", "Tickets", "Mean reward"),
            "Trend (early → late)",
          ]}
        />
        <tbody>
          {report.cofired.slice(0, 12).map((c) => (
            <tr key={c.key} data-cluster={c.key}>
              <Td>
                <Link href={clustersHref(window, { c: c.key })} className="text-accent hover:underline">
                  {c.codes.join(" + ")}
                </Link>
              </Td>
              <Td numeric>{fmtInt(c.size)}</Td>
              <Td numeric>{fmtPct(c.share)}</Td>
              <Td numeric>{fmtInt(c.tickets)}</Td>
              <Td numeric>{fmtScore(c.meanReward)}</Td>
              <TrendCell trend={c.trend} label={`share per step bin of ${c.label}`} />
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}

/**
 * Every guardrail present in the population, deciding or not. A guardrail with a higher cap (missing_evidence,
 * 0.55) rarely decides — a cheaper cap usually does, or alone it stays above a 0.5 threshold — so this is where it
 * shows.
 */
export function GuardrailPresence({ report }: { report: ClusterReport }) {
  if (!report.guardrails.length) return null;
  return (
    <Card
      title={`Guardrails triggered on the low-scoring rollouts (reward below ${report.threshold}; deciding or not)`}
      className="mb-4"
    >
      <Table>
        <Head
          cols={[
            "Guardrail",
            ...numeric("Low-scoring rollouts with it", "Share of all rollouts in window", "Deciding"),
            "Trend (early → late)",
          ]}
        />
        <tbody>
          {report.guardrails.map((g) => (
            <tr key={g.code} data-guardrail={g.code}>
              <Td>{g.code}</Td>
              <Td numeric>{fmtInt(g.size)}</Td>
              <Td numeric>{fmtPct(g.share)}</Td>
              <Td numeric>{fmtInt(g.deciding)}</Td>
              <TrendCell trend={g.trend} label={`share per step bin with ${g.code}`} />
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}

/** A population's share per step bin as a sparkline, with its early and late shares. */
function TrendCell({ trend, label }: { trend: Parameters<typeof EarlyLate>[0]["trend"]; label: string }) {
  return (
    <Td>
      <div className="flex items-center gap-2">
        <Sparkline shares={trend.shares} label={label} />
        <EarlyLate trend={trend} />
      </div>
    </Td>
  );
}
