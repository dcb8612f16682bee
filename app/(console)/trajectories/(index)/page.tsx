import type { Metadata } from "next";
import Link from "next/link";
import { FilterChips } from "@/components/browser/filter-chips.tsx";
import { FilterForm } from "@/components/browser/filter-form.tsx";
import { SearchWork } from "@/components/browser/search-work.tsx";
import { TrajectoryTable } from "@/components/browser/trajectory-table.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { can } from "@/lib/auth/policy.ts";
import { BrowseCursorError, browseLedger, countLedger } from "@/lib/ledger/browse.ts";
import { matchCountLabel } from "@/lib/ledger/count-label.ts";
import { browseQuery, parseBrowseParams, type BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { SearchInputError, SearchTimeoutError, unlessTimedOut } from "@/lib/search/data.ts";
import { browseFacets } from "@/lib/ledger/facets.ts";

export const metadata: Metadata = { title: "Trajectories" };

export default async function TrajectoriesPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const user = await requirePageUser("ledger.read");
  const parsed = parseBrowseParams(await searchParams);
  if (!parsed.ok) return <RefusedFilters params={parsed.partial} problems={parsed.problems} errors={parsed.errors} />;
  const p = parsed.params;
  const query = browseQuery(p);
  // page, count and facets in parallel: the page costs what the slowest of them costs, not their sum (a search's count
  // waits for the page, and is the page's when it holds every match; else it counts the few matches the page read)
  let page, count, facets;
  try {
    const memo = {};
    const first = browseLedger(p, 100, { plan: { memo } });
    [page, count, facets] = await Promise.all([
      first,
      // a count that the timeout stops does not refuse the page it counts: the page says it was not counted
      unlessTimedOut(countLedger(p, { firstPage: first, plan: { memo } })),
      browseFacets(),
    ]);
  } catch (err) {
    // a search the statement timeout stopped: the form keeps it, marked, to be narrowed
    if (err instanceof SearchTimeoutError)
      return <RefusedFilters params={p} problems={{ q: err.message }} errors={[`q: ${err.message}`]} />;
    if (err instanceof SearchInputError)
      return <RefusedFilters params={p} problems={{ q: err.reason }} errors={[err.message]} />;
    if (!(err instanceof BrowseCursorError)) throw err;
    return (
      <>
        <PageHeader title="Trajectories" />
        <EmptyState title="This link has a bad filter">
          {err.message}.{" "}
          <Link className="text-accent" href={`/trajectories?${query}`}>
            Start from the first page
          </Link>
        </EmptyState>
      </>
    );
  }
  const may = {
    export: can(user.role, "export"),
    audit: can(user.role, "audit.manage"),
    save: can(user.role, "ledger.read"),
  };
  return (
    <>
      <PageHeader
        title="Trajectories"
        description="Current score records under the filters below. The address bar holds the whole view: share it to share the view."
        actions={<SearchWork params={p} may={may} />}
      />
      <Card title={<span data-testid="match-count">{matchCountLabel(count)}</span>}>
        <FilterForm key={query} params={p} runs={facets.runs} categories={facets.categories} />
        <FilterChips params={p} />
        {page.rows.length === 0 ? (
          <div className="p-3">
            <EmptyState title="Nothing matches these filters">
              Loosen a filter or{" "}
              <Link className="text-accent" href="/trajectories">
                clear them all
              </Link>
              .
            </EmptyState>
          </div>
        ) : (
          <TrajectoryTable
            key={query}
            initialRows={page.rows}
            initialCursor={page.nextCursor}
            query={query}
            sort={p.sort}
            dir={p.dir}
          />
        )}
      </Card>
    </>
  );
}

/** The form, with every good filter applied in it and each refused one marked at its field. */
async function RefusedFilters({
  params,
  problems,
  errors,
}: {
  params: BrowseParams;
  problems: Record<string, string>;
  errors: string[];
}) {
  const facets = await browseFacets();
  return (
    <>
      <PageHeader title="Trajectories" />
      <Card title="Filters">
        <FilterForm params={params} runs={facets.runs} categories={facets.categories} problems={problems} />
      </Card>
      <EmptyState title="This link has a bad filter">
        {errors.join("; ")}. Fix the marked filter and apply, or{" "}
        <Link className="text-accent" href="/trajectories">
          clear the filters
        </Link>
        .
      </EmptyState>
    </>
  );
}
