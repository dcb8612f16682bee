import { ClusterLinks, ClusterTriage } from "@/components/clusters/cluster-actions.tsx";
import { Examples, Phrasings } from "@/components/clusters/cluster-extras.tsx";
import { EarlyLate, fmtPriority, fmtSlope } from "@/components/clusters/cluster-format.tsx";
import { Sparkline } from "@/components/clusters/sparkline.tsx";
import { Card, Stat } from "@/components/ui/card.tsx";
import { fmtInt, fmtPct, fmtScore } from "@/components/ui/format.ts";
import type { ClusterStateView } from "@/lib/clusters/detail-data.ts";
import type { LinkWindow } from "@/lib/clusters/keys.ts";
import type { ClusterExtras } from "@/lib/clusters/loaders.ts";
import type { ClusterReport } from "@/lib/clusters/report.ts";

/**
 * The standing cluster the guardrails cannot see: hand-offs that wrote nothing, triggered nothing and are still
 * credited on their outcome, whatever their reward. The page shows it only when it has members.
 */
export function BlindSpotCard({
  report,
  extras,
  window,
  state,
  canEdit,
  canExport,
  canFix = false,
}: {
  report: ClusterReport;
  extras: ClusterExtras | null;
  window: LinkWindow;
  state: ClusterStateView | undefined;
  canEdit: boolean;
  canExport: boolean;
  canFix?: boolean;
}) {
  const b = report.blindSpot;
  return (
    <div data-testid="blind-spot">
      <Card
        title="Blind spot: hand-off without a write, no guardrail"
        className="mb-4"
        actions={<ClusterLinks window={window} clusterKey={b.key} canExport={canExport} canFix={canFix} />}
      >
        <div className="grid gap-4 p-3 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
          <div className="space-y-3">
            <p className="text-[12px] text-fg-muted">
              Each of these rollouts handed the ticket to a human, wrote nothing in the sandbox and triggered no
              guardrail, yet its case allows the hand-off, so its outcome sub-score is still credited (the config&apos;s{" "}
              <code>handoff_outcome</code>, 0.45 by default): the ledger cannot tell it from a justified hand-off.
              Counted whatever the reward, so it may hold rollouts above the threshold. Once its case forbids the
              hand-off or requires a write (the bulk fix), the verifier scores its outcome 0 with{" "}
              <code>handoff_instead_of_resolution</code> and it leaves this cluster.
            </p>
            <div className="grid grid-cols-2 gap-2 md:grid-cols-4">
              <Stat label="Rollouts" value={fmtInt(b.size)} hint={`${fmtPct(b.share)} of all rollouts in the window`} />
              <Stat label="Tickets" value={fmtInt(b.tickets)} />
              <Stat label="Mean reward" value={fmtScore(b.meanReward)} />
              <Stat label="Priority" value={fmtPriority(b.priority?.score)} />
            </div>
            <div className="flex flex-wrap items-center gap-3 text-[12px]">
              <Sparkline shares={b.trend.shares} label="blind-spot share per step bin" width={160} height={28} />
              <span>
                share <EarlyLate trend={b.trend} />
              </span>
              <span className="text-fg-muted">slope {fmtSlope(b.trend.slope)}</span>
            </div>
            {extras && <Examples extras={extras} />}
          </div>
          <div className="space-y-3">
            {extras && <Phrasings extras={extras} />}
            <ClusterTriage runId={report.runId} clusterKey={b.key} state={state} canEdit={canEdit} />
          </div>
        </div>
      </Card>
    </div>
  );
}
