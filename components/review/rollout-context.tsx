import { CasePanel } from "@/components/trajectory/case-panel.tsx";
import { StepTimeline } from "@/components/trajectory/step-timeline.tsx";
import { ReadingPane } from "@/components/review/reading-pane.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Card } from "@/components/ui/card.tsx";
import type { RolloutView } from "@/lib/review/rollout-view.ts";

/**
 * What the annotator scores from, and the lead adjudicates from: the ticket, snapshot and spec, the final reply, the
 * sandbox writes and every step, in a pane the reading keys scroll. Built only from the rollout and its case, never
 * from the ledger.
 */
export function RolloutContext({ view, className }: { view: RolloutView; className?: string }) {
  return (
    <ReadingPane className={className}>
      <div className="space-y-3">
        <Card title="Case">
          <CasePanel ticket={view.ticket} snapshot={view.snapshot} spec={view.spec} pointers={view.pointers} />
        </Card>
        <RolloutOutcome view={view} />
      </div>
    </ReadingPane>
  );
}

/** What one rollout did: its final reply, the sandbox writes and every step (the pairwise page shows two). */
export function RolloutOutcome({ view }: { view: Pick<RolloutView, "finalReply" | "writes" | "steps" | "kinds"> }) {
  return (
    <>
      <Card title="Final reply">
        <p className="whitespace-pre-wrap px-3 py-2" data-testid="final-reply">
          {view.finalReply}
        </p>
      </Card>
      <Card title={`Sandbox writes (${view.writes.length})`}>
        <ul className="px-3 py-2">
          {view.writes.length === 0 && <li className="text-fg-muted">The sandbox recorded no write.</li>}
          {view.writes.map((w, i) => (
            <li key={i} className="flex flex-wrap items-center gap-2 py-0.5">
              <Badge tone="good">{w.tool}</Badge>
              <code className="text-[11px]">{JSON.stringify(w.args ?? {})}</code>
              {typeof w.step === "number" && <span className="text-[11px] text-fg-muted">at step #{w.step}</span>}
            </li>
          ))}
        </ul>
      </Card>
      <Card title={`Steps (${view.steps.length})`}>
        <StepTimeline steps={view.steps} kinds={view.kinds} writes={view.writes} />
      </Card>
    </>
  );
}
