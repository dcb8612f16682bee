import Link from "next/link";
import { Badge } from "@/components/ui/badge.tsx";
import { fmtScore } from "@/components/ui/format.ts";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import type { LedgerRow } from "@/lib/ledger/data.ts";

export function rewardTone(r: number | null): "good" | "warn" | "bad" | "neutral" {
  if (r === null) return "neutral";
  return r >= 0.9 ? "good" : r >= 0.5 ? "warn" : "bad";
}

export function LedgerTable({ rows }: { rows: LedgerRow[] }) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>Trajectory</Th>
          <Th>Run</Th>
          <Th numeric>Step</Th>
          <Th>Ticket</Th>
          <Th>Category</Th>
          <Th numeric>Reward</Th>
          <Th numeric>Raw</Th>
          <Th numeric>Out</Th>
          <Th numeric>Pol</Th>
          <Th numeric>Evi</Th>
          <Th numeric>Eff</Th>
          <Th numeric>Com</Th>
          <Th>Deciding guardrail</Th>
          <Th>Hand-off</Th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id.toString()} className="hover:bg-bg-subtle">
            <Td>
              <Link className="font-mono text-[12px] text-accent hover:underline" href={`/trajectories/${encodeURIComponent(r.trajectoryId)}`}>
                {r.trajectoryId}
              </Link>
            </Td>
            <Td>{r.runId}</Td>
            <Td numeric>{r.step}</Td>
            <Td className="font-mono text-[12px]">{r.ticketId}</Td>
            <Td>{r.category ?? "–"}</Td>
            <Td numeric>
              {r.status === "scored" || r.source === "external" ? (
                <Badge tone={rewardTone(r.reward)}>{fmtScore(r.reward)}</Badge>
              ) : (
                <Badge tone="bad">{r.status}</Badge>
              )}
            </Td>
            <Td numeric>{fmtScore(r.rawReward)}</Td>
            <Td numeric>{fmtScore(r.outcome)}</Td>
            <Td numeric>{fmtScore(r.policy)}</Td>
            <Td numeric>{fmtScore(r.evidence)}</Td>
            <Td numeric>{fmtScore(r.efficiency)}</Td>
            <Td numeric>{fmtScore(r.communication)}</Td>
            <Td>{r.decidingGuardrail ? <Badge tone="bad">{r.decidingGuardrail}</Badge> : <span className="text-fg-subtle">none</span>}</Td>
            <Td>{r.handoff ? "yes" : "no"}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
