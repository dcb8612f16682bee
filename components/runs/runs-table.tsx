import Link from "next/link";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { fmtInt, fmtPct, fmtScore } from "@/components/ui/format.ts";
import type { RunSummary } from "@/lib/runs/data.ts";

export function RunsTable({ runs }: { runs: RunSummary[] }) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>Run</Th>
          <Th numeric>Rollouts</Th>
          <Th numeric>Steps</Th>
          <Th numeric>Mean reward</Th>
          <Th numeric>Success</Th>
          <Th numeric>Guardrail hits</Th>
          <Th numeric>Hand-off</Th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.id} className="hover:bg-bg-subtle">
            <Td>
              <Link className="font-medium text-accent hover:underline" href={`/runs/${encodeURIComponent(r.id)}`}>
                {r.id}
              </Link>
              {r.description && <div className="text-[11px] text-fg-muted">{r.description}</div>}
            </Td>
            <Td numeric>{fmtInt(r.rollouts)}</Td>
            <Td numeric>{r.firstStep === null ? "–" : `${r.firstStep}–${r.lastStep}`}</Td>
            <Td numeric>{fmtScore(r.meanReward)}</Td>
            <Td numeric>{fmtPct(r.successRate)}</Td>
            <Td numeric>{fmtPct(r.guardrailHitRate)}</Td>
            <Td numeric>{fmtPct(r.handoffRate)}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
