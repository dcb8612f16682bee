// The bulk fix's dry-run diff: totals, per ticket the mean reward before and after, the tickets refused (with why)
// or without a case, and example rollouts whose reward changes. Presentational; every ticket and rollout is a link
// (the bulk fix is for leads and admins, who may open a case).
import { Card, Stat } from "@/components/ui/card.tsx";
import { fmtInt, fmtScore, fmtSetChange } from "@/components/ui/format.ts";
import { TicketLink, TrajectoryLink } from "@/components/ui/id-links.tsx";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import type { BulkDryRun } from "@/lib/clusters/bulk-fix.ts";

/** Ticket rows shown; the totals cover every ticket. */
const MAX_TICKET_ROWS = 200;

export function BulkFixDiff({ dry }: { dry: BulkDryRun }) {
  const t = dry.totals;
  const rows = [...dry.tickets].sort((a, b) => b.rewardChanged - a.rewardChanged).slice(0, MAX_TICKET_ROWS);
  return (
    <div className="space-y-4" data-testid="bulk-fix-diff">
      <Card title={`Dry run: ${dry.change}`}>
        <div className="grid grid-cols-2 gap-2 p-3 md:grid-cols-5">
          <Stat label="Rollouts scored" value={fmtInt(t.rollouts)} />
          <Stat label="Reward changed" value={fmtInt(t.rewardChanged)} />
          <Stat label="Mean reward" value={`${fmtScore(dry.meanBefore)} → ${fmtScore(dry.meanAfter)}`} />
          <Stat label="Reviews now agree" value={fmtInt(t.nowAgree)} />
          <Stat label="Reviews now disagree" value={fmtInt(t.nowDisagree)} />
        </div>
      </Card>
      {(dry.refused.length > 0 || dry.missing.length > 0) && (
        <Card title="Not fixed">
          <ul aria-label="Refused tickets" className="space-y-1 p-3 text-[12px] text-bad">
            {dry.refused.map((r) => (
              <li key={r.ticketId}>
                <TicketLink id={r.ticketId} canOpen className="" />: the changed spec is not valid —{" "}
                {r.issues.map((i) => `${i.path || "verifier_spec"}: ${i.message}`).join("; ")}
              </li>
            ))}
            {dry.missing.map((id) => (
              <li key={id}>
                <span className="font-mono">{id}</span>: no stored case
              </li>
            ))}
          </ul>
        </Card>
      )}
      <Card title="Per ticket">
        <Table>
          <Head cols={["Ticket", ...numeric("Rollouts", "Reward changed", "Mean before", "Mean after")]} />
          <tbody>
            {rows.map((r) => (
              <tr key={r.ticketId}>
                <Td>
                  <TicketLink id={r.ticketId} canOpen />
                </Td>
                <Td numeric>{fmtInt(r.rollouts)}</Td>
                <Td numeric>{fmtInt(r.rewardChanged)}</Td>
                <Td numeric>{fmtScore(r.meanBefore)}</Td>
                <Td numeric>{fmtScore(r.meanAfter)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
        {dry.tickets.length > rows.length && (
          <p className="p-2 text-[12px] text-fg-subtle">
            Showing {rows.length} of {fmtInt(dry.tickets.length)} tickets, most changed first.
          </p>
        )}
      </Card>
      <Card title="Example rollouts whose reward changes">
        {dry.examples.length === 0 ? (
          <p className="p-3 text-[12px] text-fg-muted">No rollout&apos;s reward changes.</p>
        ) : (
          <Table>
            <Head cols={["Rollout", ...numeric("Step", "Reward before", "Reward after"), "Guardrails", "Reasons"]} />
            <tbody>
              {dry.examples.map((d) => (
                <tr key={`${d.runId}/${d.rolloutId}`}>
                  <Td>
                    <TrajectoryLink id={d.trajectoryId} />
                  </Td>
                  <Td numeric>{d.step}</Td>
                  <Td numeric>{d.before ? fmtScore(d.before.reward) : "—"}</Td>
                  <Td numeric className="font-semibold">
                    {fmtScore(d.after.reward)}
                  </Td>
                  <Td className="text-[12px]">{fmtSetChange(d.guardrails)}</Td>
                  <Td className="text-[12px]">{fmtSetChange(d.reasons)}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Card>
    </div>
  );
}
