// The monitors page's saved searches: a run picker, the user's searches (rename, delete), and for each one that
// counts in the picked run its share of rollouts per step, with its alarm line.
import { ChartCard } from "@/components/charts/chart-card.tsx";
import { SearchShareChart } from "@/components/monitors/search-share-chart.tsx";
import { SavedSearchList, type SavedSearchItem } from "@/components/saved-searches/saved-search-list.tsx";
import { Card } from "@/components/ui/card.tsx";
import { inputClass } from "@/components/ui/field.tsx";
import type { SearchCount } from "@/lib/saved-searches/loaders.ts";

function RunPicker({ runs, run }: { runs: string[]; run: string }) {
  return (
    <form method="get" action="/monitors" aria-label="Run of the saved searches" className="flex items-center gap-2">
      <label htmlFor="saved-run" className="text-[12px]">
        Run
      </label>
      <select id="saved-run" name="run" defaultValue={run} className={`${inputClass} w-56`}>
        {runs.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <button type="submit" className="rounded border border-border px-2 py-0.5 text-[12px]">
        Show
      </button>
    </form>
  );
}

export function SavedSearchCharts({
  runs,
  run,
  searches,
  counts,
}: {
  runs: string[];
  run: string | null;
  searches: SavedSearchItem[];
  counts: SearchCount[];
}) {
  return (
    <Card title="Saved searches" actions={run && <RunPicker runs={runs} run={run} />}>
      <SavedSearchList searches={searches} />
      {run && counts.length > 0 && (
        <div className="grid grid-cols-1 gap-3 p-3 xl:grid-cols-2">
          {counts.map(({ search: s, table, error }) => (
            <ChartCard
              key={s.id}
              id={`chart-search-${s.id}`}
              title={s.name}
              description={`Share of run ${run}'s rollouts per step whose text matches ${JSON.stringify(s.query)}${s.alarmShare !== null ? `; alarm line at ${Math.round(s.alarmShare * 1000) / 10}%` : ""}.`}
              csvHref={`/api/saved-searches/${s.id}/csv?run=${encodeURIComponent(run)}`}
            >
              {table ? (
                <SearchShareChart table={table} runId={run} alarm={s.alarmShare} />
              ) : (
                <p role="status" className="px-3 py-10 text-center text-[13px] text-fg-muted">
                  {error}
                </p>
              )}
            </ChartCard>
          ))}
        </div>
      )}
    </Card>
  );
}
