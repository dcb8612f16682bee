// The clusters page's count of one saved search per step over the window: the step's rollouts, those matching and
// their share. The user's own searches that count in the run are offered; the table is the chart's (and its CSV's).
import { Card } from "@/components/ui/card.tsx";
import { fmtInt, fmtPct } from "@/components/ui/format.ts";
import { inputClass } from "@/components/ui/field.tsx";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import type { ClusterWindow } from "@/lib/clusters/schema.ts";
import type { SavedSearch } from "@/lib/saved-searches/data.ts";
import type { SearchCount } from "@/lib/saved-searches/loaders.ts";
import { SHARE_KEY } from "@/lib/saved-searches/table.ts";

/** Steps listed on the page; the CSV holds every step of the run. */
const MAX_ROWS = 500;

function Picker({ window: w, searches, picked }: { window: ClusterWindow; searches: SavedSearch[]; picked?: number }) {
  return (
    <form method="get" action="/clusters" aria-label="Count a saved search" className="flex items-center gap-2">
      <input type="hidden" name="run" value={w.runId} />
      {w.from !== undefined && <input type="hidden" name="step_from" value={w.from} />}
      {w.to !== undefined && <input type="hidden" name="step_to" value={w.to} />}
      <input type="hidden" name="threshold" value={w.threshold} />
      <select name="saved" aria-label="Saved search" defaultValue={picked ?? ""} className={`${inputClass} w-56`}>
        {searches.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </select>
      <button type="submit" className="rounded border border-border px-2 py-0.5 text-[12px]">
        Count per step
      </button>
    </form>
  );
}

export function SavedSearchSteps({
  window: w,
  searches,
  count,
}: {
  window: ClusterWindow;
  searches: SavedSearch[];
  count: SearchCount | null;
}) {
  if (!searches.length) return null;
  const rows = count?.table?.rows ?? [];
  return (
    <Card
      title="Saved search per step"
      className="mb-4"
      actions={<Picker window={w} searches={searches} picked={count?.search.id} />}
    >
      {!count ? (
        <p className="px-3 py-2 text-[12px] text-fg-muted">Pick one of your saved searches to count it per step.</p>
      ) : count.error ? (
        <p role="status" className="px-3 py-2 text-[12px] text-bad">
          {count.error}
        </p>
      ) : (
        <div className="max-h-96 overflow-auto" data-testid="saved-search-steps">
          <p className="px-3 py-1.5 text-[12px] text-fg-muted">
            {JSON.stringify(count.search.query)} in run {w.runId}
            {rows.length > MAX_ROWS ? `: the first ${MAX_ROWS} of ${fmtInt(rows.length)} steps` : ""} —{" "}
            <a
              className="text-accent"
              href={`/api/saved-searches/${count.search.id}/csv?run=${encodeURIComponent(w.runId)}`}
              download
            >
              CSV
            </a>
          </p>
          <Table>
            <Head cols={["Step", ...numeric("Rollouts", "Matching", "Share")]} />
            <tbody>
              {rows.slice(0, MAX_ROWS).map((r) => (
                <tr key={r.step}>
                  <Td>{r.step}</Td>
                  <Td numeric>{fmtInt(r.rollouts)}</Td>
                  <Td numeric>{fmtInt(r.matches)}</Td>
                  <Td numeric>{fmtPct(r[SHARE_KEY])}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </div>
      )}
    </Card>
  );
}
