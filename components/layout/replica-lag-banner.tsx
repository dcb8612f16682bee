import type { ReplicaLag } from "@/lib/db/replica-lag.ts";

/**
 * Said above every console page while the read replica is further behind than VERITY_REPLICA_MAX_LAG: the browser,
 * detail, run, cluster and agreement pages read from it. Nothing while it is current, down (reads then come from
 * the primary) or not configured.
 */
export function ReplicaLagBanner({ lag }: { lag: ReplicaLag | null }) {
  if (!lag || !lag.reachable || lag.ok) return null;
  return (
    <p
      role="status"
      data-testid="replica-lag"
      className="mb-3 rounded border border-warn bg-warn-bg px-3 py-1.5 text-[12px] text-warn"
    >
      {lag.lagSeconds === null
        ? "The read replica's lag is unknown: it has not replayed a transaction yet."
        : `Data read from the replica is ${Math.round(lag.lagSeconds)} s behind the primary (more than ${lag.maxLagSeconds} s).`}{" "}
      Ledger, run, cluster and agreement pages may not show the latest writes yet.
    </p>
  );
}
