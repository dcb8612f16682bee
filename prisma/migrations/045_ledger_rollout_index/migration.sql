-- A run's current ledger entries by rollout (docs/search.md, "The index, and why this one"). A search whose matches
-- are neither few nor walked in the browser's order (a Chinese term with an exclusion under a filter that keeps few
-- of them, or sorted by reward) is answered by one query from its index: every match, then its ledger entry. No index
-- of the ledger led with the rollout's id, so the planner hashed the matches against a scan of the run's whole
-- partition, with parallel workers: 0.7–0.8 s at 1 M rollouts, and 1.1–1.5 s of the server's CPU a page, which 20
-- researchers on 2 cores queued for. With this index each match's entry is one key lookup: 0.48–0.50 s, one process
-- (docs/benchmarks.md, "Search"). Partial, as every search reads current entries only.
CREATE INDEX "ledger_rollout_idx" ON "ledger" ("run_id", "rollout_id") WHERE "is_current";
