import type { ClusterRun } from "@/lib/clusters/detail-data.ts";
import type { ClusterWindow } from "@/lib/clusters/schema.ts";

const input = "rounded border border-border bg-bg px-1.5 py-0.5 text-[13px]";

/** Run, step window and threshold as a plain GET form: the whole view lives in the URL. */
export function WindowForm({ runs, window, view }: { runs: ClusterRun[]; window: ClusterWindow; view: string }) {
  const run = runs.find((r) => r.id === window.runId);
  return (
    <form
      method="get"
      action="/clusters"
      aria-label="Window"
      className="mb-3 flex flex-wrap items-end gap-3 text-[12px]"
    >
      <label className="flex flex-col">
        <span className="text-fg-muted">Run</span>
        <select name="run" defaultValue={window.runId} className={input}>
          {runs.map((r) => (
            <option key={r.id} value={r.id}>
              {r.id}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col">
        <span className="text-fg-muted">From step</span>
        <input
          name="step_from"
          inputMode="numeric"
          defaultValue={window.from ?? ""}
          placeholder={String(run?.firstStep ?? "")}
          className={`${input} w-24`}
        />
      </label>
      <label className="flex flex-col">
        <span className="text-fg-muted">To step</span>
        <input
          name="step_to"
          inputMode="numeric"
          defaultValue={window.to ?? ""}
          placeholder={String(run?.lastStep ?? "")}
          className={`${input} w-24`}
        />
      </label>
      <label className="flex flex-col">
        <span className="text-fg-muted">Reward below</span>
        <input name="threshold" inputMode="decimal" defaultValue={window.threshold} className={`${input} w-20`} />
      </label>
      {view === "treemap" && <input type="hidden" name="view" value="treemap" />}
      <button type="submit" className="rounded border border-border px-2 py-0.5 hover:bg-bg-muted">
        Apply
      </button>
    </form>
  );
}
