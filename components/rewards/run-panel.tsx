"use client";
// Run a version over a run: the scope (a step range, a reproducible sample, a batch's items, one ticket), the
// estimate before starting (rollouts, judge calls, tokens and cost), then the progress of each run (done/total, rate,
// ETA), polled from its row each second while it runs, with a cancel.
import { useEffect, useState, useTransition } from "react";
import { inputClass } from "@/components/ui/field.tsx";
import {
  cancelRewardRunAction,
  estimateRewardRun,
  rewardRunProgress,
  startRewardRunAction,
} from "@/lib/actions/rewards.ts";
import type { RunEstimate } from "@/lib/rewards/estimate.ts";
import type { RewardRunRow } from "@/lib/rewards/run-data.ts";

type Kind = "range" | "sample" | "batch" | "ticket";

export function RunPanel({ versionId, runs, history }: { versionId: number; runs: string[]; history: RewardRunRow[] }) {
  const [run, setRun] = useState(runs[0] ?? "");
  const [kind, setKind] = useState<Kind>("range");
  const [a, setA] = useState("");
  const [b, setB] = useState("");
  const [fresh, setFresh] = useState(false);
  const [estimate, setEstimate] = useState<RunEstimate | { error: string } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [live, setLive] = useState<number[]>([]);
  const [pending, start] = useTransition();

  const scope = () =>
    kind === "range"
      ? { kind, ...(a ? { from: Number(a) } : {}), ...(b ? { to: Number(b) } : {}) }
      : kind === "sample"
        ? { kind, n: Number(a), salt: b }
        : kind === "batch"
          ? { kind, batch: Number(a) }
          : { kind, ticket: a };

  return (
    <div className="grid gap-3 p-3">
      <div className="flex flex-wrap items-end gap-2">
        <label className="text-[12px] font-medium">
          Run
          <select className={inputClass} value={run} onChange={(e) => setRun(e.target.value)} aria-label="Run">
            {runs.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <label className="text-[12px] font-medium">
          Over
          <select
            className={inputClass}
            value={kind}
            onChange={(e) => setKind(e.target.value as Kind)}
            aria-label="Scope"
          >
            <option value="range">a step range</option>
            <option value="sample">a reproducible sample</option>
            <option value="batch">a shadow-audit batch&apos;s items</option>
            <option value="ticket">one ticket</option>
          </select>
        </label>
        <label className="text-[12px] font-medium">
          {kind === "range" ? "From step" : kind === "sample" ? "N" : kind === "batch" ? "Batch id" : "Ticket"}
          <input className={inputClass} value={a} onChange={(e) => setA(e.target.value)} aria-label="Scope first" />
        </label>
        {(kind === "range" || kind === "sample") && (
          <label className="text-[12px] font-medium">
            {kind === "range" ? "To step" : "Salt"}
            <input className={inputClass} value={b} onChange={(e) => setB(e.target.value)} aria-label="Scope second" />
          </label>
        )}
        <label className="text-[12px]">
          <input type="checkbox" checked={fresh} onChange={(e) => setFresh(e.target.checked)} /> compute again (no
          reuse)
        </label>
        <button
          type="button"
          className="rounded border border-border px-3 py-1 text-[13px]"
          disabled={pending || !run}
          onClick={() => start(async () => setEstimate(await estimateRewardRun(versionId, run, scope())))}
        >
          Estimate
        </button>
        <button
          type="button"
          className="rounded bg-accent px-3 py-1 text-[13px] text-white disabled:opacity-50"
          disabled={pending || !estimate || "error" in estimate}
          onClick={() =>
            start(async () => {
              const r = await startRewardRunAction(versionId, run, scope(), fresh);
              if (!r.ok) setMessage(r.error);
              else {
                setMessage(`${r.resumed ? "Resumed" : "Started"} run #${r.id}.`);
                setLive((l) => [r.id, ...l]);
              }
            })
          }
        >
          Start run
        </button>
      </div>
      {estimate && (
        <p className="text-[13px]" data-testid="run-estimate">
          {"error" in estimate
            ? estimate.error
            : `${estimate.rollouts} rollouts · ${estimate.judgeCalls} judge calls · ~${estimate.tokens.toLocaleString()} tokens · ~$${estimate.cost.toFixed(4)} (estimated)`}
        </p>
      )}
      {message && <p role="status">{message}</p>}
      <ul className="grid gap-1" aria-label="Reward runs">
        {live.map((id) => (
          <RunProgress key={id} id={id} />
        ))}
        {history
          .filter((h) => !live.includes(h.id))
          .map((h) => (
            <RunProgress key={h.id} id={h.id} initial={h} />
          ))}
      </ul>
    </div>
  );
}

function RunProgress({ id, initial }: { id: number; initial?: RewardRunRow }) {
  const [row, setRow] = useState<RewardRunRow | null>(initial ?? null);
  useEffect(() => {
    if (row && row.status !== "running") return;
    const t = setInterval(() => void rewardRunProgress(id).then(setRow), 1000);
    return () => clearInterval(t);
  }, [id, row]);
  if (!row) return <li>run #{id}: starting…</li>;
  const pct = row.total ? Math.round((100 * row.done) / row.total) : 100;
  return (
    <li className="text-[13px]" data-testid={`reward-run-${id}`}>
      {row.kind === "probe" ? "injection probe" : row.kind === "retest" ? "retest" : "run"} #{row.id} v{row.version} on{" "}
      {row.runId}: <strong>{row.interrupted ? "interrupted" : row.status}</strong>{" "}
      <progress max={row.total || 1} value={row.done} aria-label={`run ${row.id} progress`} /> {row.done}/{row.total} (
      {pct}%) · {row.reused} reused · {row.failed} failed · {row.rate.toFixed(1)}/s
      {row.etaSeconds !== null && <> · ETA {Math.round(row.etaSeconds)} s</>}
      {row.cost > 0 && <> · ${row.cost.toFixed(4)}</>}
      {row.status === "running" && !row.cancelRequested && (
        <button type="button" className="ml-2 text-bad underline" onClick={() => void cancelRewardRunAction(row.id)}>
          Cancel
        </button>
      )}
    </li>
  );
}
