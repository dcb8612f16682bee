import { Badge } from "@/components/ui/badge.tsx";
import { fmtInt } from "@/components/ui/format.ts";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import type { BatchPreview } from "@/lib/audit/data.ts";
import type { BatchPlan } from "@/lib/audit/plan.ts";

const pct = (x: number) => (Number.isFinite(x) ? `${+(x * 100).toPrecision(3)}%` : "–");

/**
 * How big the audit must be: items, design effect, tickets and rate for each target half-width over the previewed
 * window, and per stratum at the widest target, with a warning where this batch draws fewer items than the
 * per-guardrail figures need.
 */
export function AuditPlanCard({ plans, preview }: { plans: BatchPlan[]; preview: BatchPreview }) {
  const widest = plans[plans.length - 1];
  const drawn = new Map(preview.sample.strata.map((s) => [s.stratum, s.items]));
  const short = widest.strata.filter((s) => (drawn.get(s.stratum) ?? 0) < s.items);
  return (
    <div data-testid="audit-plan">
      <p className="px-3 py-2 text-[12px] text-fg-muted">
        At an expected agreement of <b>{pct(widest.agreement)}</b> ({widest.sources.agreement}); whole tickets sampled,{" "}
        {widest.itemsPerTicket.toFixed(widest.itemsPerTicket % 1 ? 1 : 0)} item
        {widest.itemsPerTicket === 1 ? "" : "s"} per ticket, intra-ticket correlation ρ = <b>{widest.icc.toFixed(2)}</b>{" "}
        ({widest.sources.icc}), design effect <b>{widest.designEffect.toFixed(2)}</b>.
      </p>
      {widest.iccRange && (
        <p className="px-3 pb-2 text-[12px] text-fg-muted" data-testid="plan-icc-range">
          ρ is uncertain: measured {widest.iccRange.estimate.toFixed(2)}, 95% interval{" "}
          {widest.iccRange.lower.toFixed(2)}–{widest.iccRange.upper.toFixed(2)}, a design effect anywhere from{" "}
          {widest.iccRange.designEffect.lower.toFixed(2)} to {widest.iccRange.designEffect.upper.toFixed(2)} at this
          many items per ticket. The plan is for the upper end, so the batch is big enough whichever is true.
        </p>
      )}
      <Table>
        <Head
          cols={[
            "Target (95% interval)",
            ...numeric("Items (simple random)", "Items (whole tickets)", "Tickets", "Rate over this window"),
          ]}
        />
        <tbody>
          {plans.map((p) => (
            <tr key={p.halfWidth} data-testid={`plan-${p.halfWidth}`}>
              <Td>±{Math.round(p.halfWidth * 100)}%</Td>
              <Td numeric>{fmtInt(p.overall.itemsSrs)}</Td>
              <Td numeric>{fmtInt(p.overall.items)}</Td>
              <Td numeric>{fmtInt(p.overall.ticketsNeeded)}</Td>
              <Td numeric>
                {p.overall.feasible ? pct(p.overall.rate) : <Badge tone="warn">more than the window holds</Badge>}
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
      <p className="px-3 pt-3 pb-1 font-medium">Per stratum, for ±{Math.round(widest.halfWidth * 100)}%</p>
      {short.length > 0 && (
        <p className="px-3 pb-2 text-warn" data-testid="plan-too-small">
          This batch is too small for the per-guardrail figures of {short.map((s) => s.stratum).join(", ")}: raise the
          rate or set at least {Math.max(...short.map((s) => Math.min(s.ticketsNeeded, s.tickets)))} tickets per
          stratum.
        </p>
      )}
      <Table>
        <Head
          cols={[
            "Stratum",
            ...numeric("Expected agreement", "Items needed", "Tickets needed", "Items this batch draws"),
          ]}
        />
        <tbody>
          {widest.strata.map((s) => (
            <tr key={s.stratum} data-testid={`plan-stratum-${s.stratum}`}>
              <Td className="font-mono text-[12px]">{s.stratum}</Td>
              <Td numeric>{pct(s.agreement)}</Td>
              <Td numeric>{fmtInt(s.items)}</Td>
              <Td numeric>
                {fmtInt(s.ticketsNeeded)}
                {!s.feasible && <> (of {fmtInt(s.tickets)})</>}
              </Td>
              <Td numeric>
                {/* the badge under the figure: beside it, the last column overflowed the card */}
                <div className="flex flex-col items-end gap-0.5">
                  {fmtInt(drawn.get(s.stratum) ?? 0)}
                  {(drawn.get(s.stratum) ?? 0) < s.items && <Badge tone="warn">too small</Badge>}
                </div>
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}
