-- Verity 005: clusters of low-scoring rollouts (lib/clusters). A lead's triage of a cluster (pin, status, note) is
-- kept per run and cluster key; three partial indexes let the clustering read a million-rollout run without touching
-- the wide ledger and rollout rows (figures: docs/benchmarks.md "Clusters", bench/clusters.ts).

CREATE TYPE "ClusterStatus" AS ENUM ('open', 'data_requested', 'fixed', 'wont_fix');

-- key is the cluster's signature as lib/clusters/keys.ts writes it ("unauthorized_write",
-- "weakest:outcome|required_write_missing@finance.issue_refund", "blind_spot:handoff_no_write", …): stable across
-- windows and thresholds, so a note written on one window is found again on another. Every change is also appended
-- to audit_log (action "cluster.update") by the same transaction.
CREATE TABLE "cluster_states" (
    "run_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "status" "ClusterStatus" NOT NULL DEFAULT 'open',
    "note" TEXT NOT NULL DEFAULT '',
    "updated_by_id" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "cluster_states_pkey" PRIMARY KEY ("run_id", "key")
);
ALTER TABLE "cluster_states" ADD CONSTRAINT "cluster_states_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "cluster_states" ADD CONSTRAINT "cluster_states_updated_by_id_fkey" FOREIGN KEY ("updated_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The population: current entries of a run below the threshold. A ledger row is ~1 KB (reasons, guardrails and
-- claims jsonb), so any plan that visits the heap reads the whole table: at 1M rollouts the plain
--   select deciding_guardrail, count(*) … where run_id = $1 and is_current and reward < 0.5 group by 1
-- is a Parallel Seq Scan over 1,039 MB (133k buffers) taking 1.15 s for level one alone. This index holds exactly
-- the columns clustering reads (key: deciding guardrail or weakest sub-score, co-fired mask, category, ticket, reward
-- removed by the cap, step bin), so the same query is a Parallel Index Only Scan, Index Cond (run_id = … AND
-- reward < 0.5), Heap Fetches: 0, 3.7k buffers, 85 ms. Keyed by reward so a lower threshold reads fewer entries, and
-- (reward, id) is the "lowest reward first" order of a cluster's examples (LIMIT stops early). Partial: entries at
-- or above 0.9 (success) are never low-scoring, which keeps it at ~57% of the ledger (91 MB at 1M); a threshold
-- above 0.9 still works, over the heap.
CREATE INDEX "ledger_clusters_idx" ON "ledger" ("run_id", "reward", "id")
    INCLUDE ("step", "raw_reward", "deciding_guardrail", "guardrail_mask", "category", "ticket_id",
             "outcome", "policy", "evidence", "efficiency", "communication")
    WHERE "is_current" AND "reward" < 0.9;

-- The blind-spot candidates: current hand-offs that triggered no guardrail, whatever their reward (the demo's
-- hacking run reaches 41% of rollouts). Keyed by rollout_id so that the semi-join with rollouts_no_writes_idx below
-- is a Merge Join of two index-only scans (no sort, no hash of 400k ids): 219k candidates at 1M in ~0.3–0.5 s,
-- against 1.1–3.3 s for the hash join / nested loop the planner picks without these two indexes and statistics.
CREATE INDEX "ledger_handoffs_idx" ON "ledger" ("run_id", "rollout_id")
    INCLUDE ("step", "reward", "raw_reward", "ticket_id", "category", "id")
    WHERE "is_current" AND "handoff" AND "guardrail_mask" = 0;

-- Levels 2 and 3 read the reason signatures of a bounded sample of each level-1 cluster (~1,500 entries each, ~10k
-- at 1M): through the primary key every probe fetches reason rows from the 290 MB heap (Index Scan on
-- ledger_reasons_pkey, 22k loops, 1.6 s); with code, tool and field in the index it is an Index Only Scan
-- (Heap Fetches: 0, ~0.01 ms a probe). Ingest appends to it (ledger ids only grow).
CREATE INDEX "ledger_reasons_signature_idx" ON "ledger_reasons" ("ledger_id") INCLUDE ("code", "tool", "field");

-- "No sandbox write" needs the rollout's sandbox jsonb; this index is the cheap proxy: the ids of rollouts whose
-- sandbox recorded no write (13 MB for 426k of 1M rollouts). jsonb equality rather than jsonb_array_length: it never
-- raises, so an odd sandbox can never make an ingest fail on this index.
CREATE INDEX "rollouts_no_writes_idx" ON "rollouts" ("run_id", "id") WHERE ("sandbox" -> 'writes') = '[]'::jsonb;
-- Without statistics on the expression the planner assumes 0.5% of rollouts have no write (5,002 of 1M rows where
-- there are 426k) and picks a 426k-probe nested loop (4.3 s) instead of the merge join. Statistics on the operand
-- (its most common value is '[]') give the right estimate (430k); statistics on the whole boolean are not used.
CREATE STATISTICS "rollouts_no_writes_stats" ON ("sandbox" -> 'writes') FROM "rollouts";
