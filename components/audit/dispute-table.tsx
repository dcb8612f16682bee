import Link from "next/link";
import { Badge } from "@/components/ui/badge.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { fmtScore } from "@/components/ui/format.ts";
import { TicketLink } from "@/components/ui/id-links.tsx";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import type { DisputeRow } from "@/lib/audit/adjudication-data.ts";
import { CAUSE_LABELS } from "@/lib/agreement/causes.ts";

/**
 * Disputed items, waiting or settled: each links to its adjudication and its ticket to its case (the adjudication
 * page is for leads and admins, who may open a case); the chosen one is highlighted.
 */
export function DisputeTable({ rows, selected }: { rows: DisputeRow[]; selected?: bigint }) {
  return (
    <Table>
      <Head
        cols={["Item", "Batch", "Ticket", ...numeric("Ledger", "Human"), "Deciding guardrail", "Disputed", "Verdict"]}
      />
      <tbody>
        {rows.map((d) => (
          <tr key={d.itemId.toString()} className={d.itemId === selected ? "bg-accent/10" : undefined}>
            <Td>
              <Link className="text-accent" href={`/audit/adjudication?item=${d.itemId}`}>
                #{d.itemId.toString()}
              </Link>
            </Td>
            <Td>{d.batchName}</Td>
            <Td>
              <TicketLink id={d.ticketId} canOpen />
            </Td>
            <Td numeric>{fmtScore(d.ledgerReward)}</Td>
            <Td numeric>{d.humanRewards.map(fmtScore).join(" · ")}</Td>
            <Td className="font-mono text-[12px]">{d.decidingGuardrail ?? "none"}</Td>
            <Td>
              <DateTime value={d.disputedAt} />
            </Td>
            <Td>
              {d.cause ? (
                <Badge tone="accent">
                  {CAUSE_LABELS[d.cause]}
                  {d.guardrail ? ` · ${d.guardrail}` : ""}
                </Badge>
              ) : (
                <Badge tone="warn">waiting</Badge>
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
