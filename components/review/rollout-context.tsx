import { CasePanel } from "@/components/trajectory/case-panel.tsx";
import { StepTimeline } from "@/components/trajectory/step-timeline.tsx";
import { ReadingPane } from "@/components/review/reading-pane.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Card } from "@/components/ui/card.tsx";
import { clipJson, textWindow, windowOf, type Window } from "@/lib/ledger/page-window.ts";
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
          <CasePanel
            ticket={clipJson(view.ticket) as typeof view.ticket}
            snapshot={clipJson(view.snapshot) as typeof view.snapshot}
            spec={clipJson(view.spec) as typeof view.spec}
            pointers={view.pointers}
          />
        </Card>
        <RolloutOutcome view={view} />
      </div>
    </ReadingPane>
  );
}

/**
 * What one rollout did: its final reply, the sandbox writes and its steps (the pairwise page shows two) — the first
 * window of each (lib/ledger/page-window.ts), so that one record stored far past the ingest bounds cannot wreck the
 * page; the rollout's page shows the rest.
 */
export function RolloutOutcome({ view }: { view: Pick<RolloutView, "finalReply" | "writes" | "steps" | "kinds"> }) {
  const reply = textWindow(view.finalReply, 0);
  const writes = windowOf(view.writes, 0);
  const steps = windowOf(view.steps, 0);
  return (
    <>
      <Card title="Final reply">
        <p className="whitespace-pre-wrap px-3 py-2" data-testid="final-reply">
          {reply.text}
        </p>
        <FirstWindow window={reply.window} noun="characters" />
      </Card>
      <Card title={`Sandbox writes (${view.writes.length})`}>
        <ul className="px-3 py-2">
          {view.writes.length === 0 && <li className="text-fg-muted">The sandbox recorded no write.</li>}
          {writes.items.map((w, i) => (
            <li key={i} className="flex flex-wrap items-center gap-2 py-0.5">
              <Badge tone="good">{w.tool}</Badge>
              <code className="text-[11px]">{JSON.stringify(clipJson(w.args ?? {}))}</code>
              {typeof w.step === "number" && <span className="text-[11px] text-fg-muted">at step #{w.step}</span>}
            </li>
          ))}
        </ul>
        <FirstWindow window={writes.window} noun="writes" />
      </Card>
      <Card title={`Steps (${view.steps.length})`}>
        <StepTimeline
          steps={steps.items.map((s) => clipJson(s) as (typeof steps.items)[number])}
          kinds={view.kinds}
          writes={writes.items}
          total={steps.window.total}
        />
        <FirstWindow window={steps.window} noun="steps" />
      </Card>
    </>
  );
}

function FirstWindow({ window: w, noun }: { window: Window; noun: string }) {
  if (w.to >= w.total) return null;
  return (
    <p className="px-3 py-2 text-[12px] text-fg-muted">
      Showing the first {w.to.toLocaleString("en-US")} {noun} of {w.total.toLocaleString("en-US")}.
    </p>
  );
}
