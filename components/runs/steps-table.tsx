import { Table, Td, Th } from "@/components/ui/table.tsx";
import { fmtInt, fmtPct, fmtScore } from "@/components/ui/format.ts";
import { StepLink } from "@/components/ui/id-links.tsx";
import type { StepRollupCounters } from "@/lib/rollups/data.ts";
import { stepHealth } from "@/lib/rollups/stats.ts";

/**
 * The figures behind the charts, newest step first (bucketed like the charts when the range is wide); each step (or
 * bucket) links to the trajectory browser filtered to it.
 */
export function StepsTable({
  runId,
  rows,
  bucket,
}: {
  runId: string;
  rows: readonly StepRollupCounters[];
  bucket: number;
}) {
  return (
    <Table className="max-h-[28rem] overflow-y-auto">
      <thead>
        <tr>
          <Th numeric>{bucket > 1 ? "Steps" : "Step"}</Th>
          <Th numeric>Rollouts</Th>
          <Th numeric>Mean reward</Th>
          <Th numeric>Success</Th>
          <Th numeric>Guardrail hits</Th>
          <Th numeric>Hand-off</Th>
          <Th numeric>Group std</Th>
        </tr>
      </thead>
      <tbody data-testid="steps-table">
        {[...rows].reverse().map((r) => {
          const h = stepHealth(r);
          return (
            <tr key={r.step}>
              <Td numeric>
                <StepLink runId={runId} step={r.step} span={bucket}>
                  {bucket > 1 ? `${fmtInt(r.step)}–${fmtInt(r.step + bucket - 1)}` : fmtInt(r.step)}
                </StepLink>
              </Td>
              <Td numeric>{fmtInt(r.rollouts)}</Td>
              <Td numeric>{fmtScore(h.meanReward)}</Td>
              <Td numeric>{fmtPct(h.successRate)}</Td>
              <Td numeric>{fmtPct(h.guardrailHitRate)}</Td>
              <Td numeric>{fmtPct(h.handoffRate)}</Td>
              <Td numeric>{fmtScore(h.meanGroupStd)}</Td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
