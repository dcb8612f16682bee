import Link from "next/link";
import { fmtPct, fmtScore } from "@/components/ui/format.ts";
import type { ClusterExtras } from "@/lib/clusters/loaders.ts";

/** The most common reply phrasings of a cluster's sampled final replies (near-duplicates grouped). */
export function Phrasings({ extras }: { extras: ClusterExtras }) {
  const p = extras.phrasings;
  if (!p || p.sampled === 0) return <p className="text-fg-muted">No replies (the members have no stored rollout).</p>;
  return (
    <div>
      <h3 className="mb-1 text-[12px] font-medium text-fg-muted">
        Most common replies ({p.sampled.toLocaleString("en-US")} sampled)
      </h3>
      <ol className="space-y-1" data-testid="phrasings">
        {p.phrasings.map((x) => (
          <li key={x.exampleTrajectoryId} className="flex gap-2">
            <span className="num w-12 shrink-0 text-right text-fg-muted">{fmtPct(x.share, 0)}</span>
            <span className="line-clamp-3 min-w-0" title={x.text}>
              “{x.text}” <span className="text-fg-subtle">× {x.count.toLocaleString("en-US")}</span>
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** A few members, lowest reward first, each opening the rollout. */
export function Examples({ extras }: { extras: ClusterExtras }) {
  if (!extras.examples.length) return null;
  return (
    <div>
      <h3 className="mb-1 text-[12px] font-medium text-fg-muted">Example rollouts (lowest reward first)</h3>
      <ul className="space-y-0.5" data-testid="examples">
        {extras.examples.map((e) => (
          <li key={e.trajectoryId} className="flex gap-2">
            <Link
              href={`/trajectories/${encodeURIComponent(e.trajectoryId)}`}
              className="font-mono text-[12px] text-accent hover:underline"
            >
              {e.trajectoryId}
            </Link>
            <span className="num text-fg-muted">
              reward {fmtScore(e.reward)} · step {e.step}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
