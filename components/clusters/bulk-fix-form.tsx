"use client";
// The bulk fix form: which of the cluster's tickets (all, or some by checkbox), one spec change, then "Dry run" — the
// route streams NDJSON progress lines and the diff, read here as they arrive — and Apply (the server action). Any
// change to the form after a dry run asks for a new one before Apply.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useActionState, useEffect, useRef, useState, type FormEvent, type RefObject } from "react";
import { BulkFixDiff } from "@/components/clusters/bulk-fix-diff.tsx";
import { Card } from "@/components/ui/card.tsx";
import { FormMessage, inputClass } from "@/components/ui/field.tsx";
import { fmtInt, fmtScore } from "@/components/ui/format.ts";
import { applyBulkFixAction, type BulkApplyState } from "@/lib/actions/clusters-bulk-fix.ts";
import type { DryRunLine } from "@/lib/clusters/bulk-fix-stream.ts";
import type { BulkDryRun } from "@/lib/clusters/bulk-fix.ts";
import type { ClusterTicket } from "@/lib/clusters/detail-data.ts";
import { bulkFixFormRecord } from "@/lib/clusters/schema.ts";

/** Checkboxes shown; past this, "all tickets" is the way to fix the rest. */
const MAX_TICKET_BOXES = 500;

type DryState =
  | { phase: "idle" }
  | { phase: "running"; tickets: number; rollouts: number; done: number; ticketsDone: number }
  | { phase: "done"; dry: BulkDryRun; rollouts: number }
  | { phase: "error"; message: string };

/** Reads the route's NDJSON body line by line as it arrives, calling `onLine` for each. */
async function readLines(res: Response, onLine: (l: DryRunLine) => void): Promise<void> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) onLine(JSON.parse(line) as DryRunLine);
    }
  }
}

/**
 * The dry run of the form's change: streamed from its route, its state follows the progress lines to the diff. Any
 * change to the tickets or the spec change after it makes it stale (`stale`, the form's onChange).
 */
function useDryRun(formRef: RefObject<HTMLFormElement | null>) {
  const [dry, setDry] = useState<DryState>({ phase: "idle" });
  // What the dry run scored is what Apply saves: a change to the tickets or the spec change asks for a new dry run
  // (the reason is not part of what is scored).
  const stale = (e: FormEvent<HTMLFormElement>) => {
    if ((e.target as HTMLInputElement).name === "reason") return;
    setDry((d) => (d.phase === "running" ? d : { phase: "idle" }));
  };

  async function runDry() {
    const form = formRef.current!;
    setDry({ phase: "running", tickets: 0, rollouts: 0, done: 0, ticketsDone: 0 });
    try {
      const res = await fetch("/clusters/fix/dry-run", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(bulkFixFormRecord(new FormData(form))),
      });
      if (!res.ok) {
        const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        setDry({ phase: "error", message: body?.error?.message ?? `The dry run was refused (${res.status}).` });
        return;
      }
      let total = 0;
      await readLines(res, (l) => {
        if (l.type === "start") {
          total = l.rollouts;
          setDry({ phase: "running", tickets: l.tickets, rollouts: l.rollouts, done: 0, ticketsDone: 0 });
        } else if (l.type === "progress")
          setDry((d) =>
            d.phase === "running" ? { ...d, done: l.rollouts, ticketsDone: l.ticketsDone, tickets: l.tickets } : d,
          );
        else if (l.type === "result") setDry({ phase: "done", dry: l.dryRun, rollouts: total });
        else setDry({ phase: "error", message: l.message });
      });
    } catch (err) {
      setDry({ phase: "error", message: `The dry run stopped: ${(err as Error).message}` });
    }
  }
  return { dry, stale, runDry };
}

export function BulkFixForm({
  window: w,
  clusterKey,
  tickets,
  backHref,
}: {
  window: { run: string; stepFrom?: number; stepTo?: number; threshold: number };
  clusterKey: string;
  tickets: ClusterTicket[];
  backHref: string;
}) {
  const router = useRouter();
  const formRef = useRef<HTMLFormElement>(null);
  const { dry, stale, runDry } = useDryRun(formRef);
  const [applied, applyAction, applying] = useActionState<BulkApplyState, FormData>(applyBulkFixAction, {});
  useEffect(() => {
    if (applied.applied) router.refresh();
  }, [applied, router]);

  const ready = dry.phase === "done" && dry.dry.totals.rollouts > 0;
  return (
    <div className="space-y-4">
      <form ref={formRef} action={applyAction} onChange={stale} aria-label="Bulk fix" className="space-y-4">
        <input type="hidden" name="run" value={w.run} />
        {w.stepFrom !== undefined && <input type="hidden" name="step_from" value={w.stepFrom} />}
        {w.stepTo !== undefined && <input type="hidden" name="step_to" value={w.stepTo} />}
        <input type="hidden" name="threshold" value={w.threshold} />
        <input type="hidden" name="cluster" value={clusterKey} />
        <TicketScope tickets={tickets} />
        <SpecChange />
        <Card title="Dry run, then apply">
          <div className="grid gap-3 p-3 text-[13px]">
            <div className="flex flex-wrap items-center gap-3">
              <button
                type="button"
                onClick={runDry}
                disabled={dry.phase === "running"}
                className="rounded border border-border px-3 py-1 font-medium disabled:opacity-60"
              >
                {dry.phase === "running" ? "Dry run…" : "Dry run over every affected rollout"}
              </button>
              <DryProgress dry={dry} />
            </div>
            <label className="grid gap-1 text-[12px]">
              Reason for the new case versions
              <input name="reason" className={inputClass} placeholder="these cases must not be handed off" />
            </label>
            <div className="flex flex-wrap items-center gap-3">
              <button
                type="submit"
                disabled={!ready || applying}
                className="rounded bg-accent px-3 py-1 font-medium text-accent-fg disabled:opacity-60"
              >
                {applying ? "Applying…" : "Apply: save the versions and re-score"}
              </button>
              {!ready && !applying && <span className="text-[12px] text-fg-muted">Apply after a dry run.</span>}
              <FormMessage state={applied} />
              {applied.applied && (
                <Link href={backHref} className="text-[12px] text-accent hover:underline">
                  Back to the cluster
                </Link>
              )}
            </div>
          </div>
        </Card>
      </form>
      {dry.phase === "done" && <BulkFixDiff dry={dry.dry} />}
    </div>
  );
}

/** Which tickets: all of the cluster, or the ones checked (the first MAX_TICKET_BOXES are offered). */
function TicketScope({ tickets }: { tickets: ClusterTicket[] }) {
  const [scope, setScope] = useState<"all" | "some">("all");
  const [picked, setPicked] = useState<Set<string>>(() => new Set());
  return (
    <Card title="Tickets">
      <div className="space-y-2 p-3 text-[13px]">
        <fieldset className="flex flex-wrap gap-4">
          <legend className="sr-only">Which tickets</legend>
          <label className="flex items-center gap-1">
            <input type="radio" checked={scope === "all"} onChange={() => setScope("all")} />
            All {fmtInt(tickets.length)} tickets of the cluster
          </label>
          <label className="flex items-center gap-1">
            <input type="radio" checked={scope === "some"} onChange={() => setScope("some")} />
            Only the tickets checked below
          </label>
        </fieldset>
        {scope === "all" ? null : (
          <ul className="grid max-h-72 gap-1 overflow-auto sm:grid-cols-2 lg:grid-cols-3" aria-label="Tickets to fix">
            {tickets.slice(0, MAX_TICKET_BOXES).map((t) => (
              <li key={t.ticketId}>
                <label className="flex items-center gap-2 text-[12px]">
                  <input
                    type="checkbox"
                    name="tickets"
                    value={t.ticketId}
                    checked={picked.has(t.ticketId)}
                    onChange={(e) => {
                      const next = new Set(picked);
                      if (e.target.checked) next.add(t.ticketId);
                      else next.delete(t.ticketId);
                      setPicked(next);
                    }}
                  />
                  <span className="font-mono">{t.ticketId}</span>
                  <span className="text-fg-muted">
                    {t.category ?? "—"} · {fmtInt(t.rollouts)} rollouts · mean {fmtScore(t.meanReward)}
                  </span>
                </label>
              </li>
            ))}
          </ul>
        )}
        <input type="hidden" name="scope" value={scope} />
      </div>
    </Card>
  );
}

/** The one spec change: forbid the hand-off, or require a write (tool and fields). */
function SpecChange() {
  const [change, setChange] = useState<"handoff" | "require_write">("handoff");
  return (
    <Card title="Spec change">
      <div className="grid gap-3 p-3 text-[13px]">
        <label className="flex items-center gap-2">
          <input
            type="radio"
            name="change"
            value="handoff"
            checked={change === "handoff"}
            onChange={() => setChange("handoff")}
          />
          Set <span className="font-mono">handoff: &quot;not_allowed&quot;</span> (a hand-off with nothing done then
          scores outcome 0)
          <input type="hidden" name="handoff" value="not_allowed" />
        </label>
        <label className="flex items-center gap-2">
          <input
            type="radio"
            name="change"
            value="require_write"
            checked={change === "require_write"}
            onChange={() => setChange("require_write")}
          />
          Add a required write
        </label>
        {change === "require_write" && (
          <div className="grid gap-2 pl-6 md:grid-cols-2">
            <label className="grid gap-1 text-[12px]">
              Tool (a write tool of the registry)
              <input name="tool" className={inputClass} placeholder="finance.issue_refund" />
            </label>
            <label className="grid gap-1 text-[12px]">
              Fields (name=value, comma-separated; $pointer into the case&apos;s snapshot)
              <input name="fields" className={inputClass} placeholder="order_id=$order.id" />
            </label>
          </div>
        )}
      </div>
    </Card>
  );
}

function DryProgress({ dry }: { dry: DryState }) {
  if (dry.phase === "idle") return null;
  if (dry.phase === "error")
    return (
      <span role="alert" className="text-[12px] text-bad">
        {dry.message}
      </span>
    );
  const done = dry.phase === "done" ? dry.dry.totals.rollouts : dry.done;
  const of = dry.rollouts;
  return (
    <span role="status" className="flex items-center gap-2 text-[12px]" data-testid="bulk-fix-progress">
      <progress value={done} max={Math.max(of, 1)} className="w-40" />
      {dry.phase === "done"
        ? `Scored ${fmtInt(done)} of ${fmtInt(of)} rollouts: done.`
        : `Scored ${fmtInt(done)} of ${fmtInt(of)} rollouts (${fmtInt(dry.ticketsDone)} of ${fmtInt(dry.tickets)} tickets)…`}
    </span>
  );
}
