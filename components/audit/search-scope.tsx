import Link from "next/link";
import { filterChips } from "@/components/browser/filter-chips.tsx";
import { fmtInt } from "@/components/ui/format.ts";
import { browseQuery, type BrowseParams } from "@/lib/ledger/browse-schema.ts";

/**
 * What a batch drawn from the trajectory browser ("Audit these") samples: the browser's matches, named by its
 * filters, with a link back to them. The confirmation before "Create batch": how many rollouts match, and (below)
 * how many the sample draws.
 */
export function SearchScope({ filter, rollouts }: { filter: BrowseParams; rollouts: number }) {
  const chips = filterChips(filter);
  return (
    <div className="border-b border-border px-3 py-2 text-[12px]" data-testid="search-scope">
      Sampled from the {fmtInt(rollouts)} scorable rollouts of the window that match the browser&apos;s filters
      {chips.length ? ": " : ""}
      {chips.map((c) => (
        <span key={c.label} className="mr-1 rounded border border-border px-1.5 py-0.5 font-mono text-[11px]">
          {c.label}
        </span>
      ))}{" "}
      <Link className="text-accent" href={`/trajectories?${browseQuery(filter)}`}>
        open them
      </Link>
    </div>
  );
}
