-- Verity 020: the indexes of the run-scoped tables, reviewed against the plans the pages and benchmarks need now that
-- every partition holds one run (014).
--
-- Inside a partition every row has the same run_id, so an index key that leads with run_id spends its width (a text
-- per entry, 11–40 bytes with its header and padding) on a column that never narrows the scan. A query still names
-- run_id = $1 (that is what prunes to the partition), and PostgreSQL keeps it as a filter on the partition's scan
-- — so an index without run_id can still serve the query's order and its other conditions, but no longer an
-- index-only scan (the filter needs the column). Per index, from EXPLAIN on partitioned tables (bench/scale.ts
-- prints which indexes its reads used; docs/benchmarks.md "Scale"):
--
-- Kept as they are:
--   ledger_pkey (run_id, id), rollouts_pkey (run_id, id), ledger_guardrails_pkey, ledger_reasons_pkey, the rollup
--     primary keys, ledger (run_id, supersedes_id) and rollouts (run_id, trajectory_id) unique: a partitioned table's
--     unique constraints must contain the partition key (and Citus wants them so: docs/scale.md). ledger_pkey is the
--     browser's default order (newest first) and every by-id read and join; rollouts_pkey the ledger → rollout join;
--     the supersedes key the successor check of 012's deferred trigger; the rollouts key ingest's existence check.
--   ledger_clusters_idx, ledger_handoffs_idx (005) and rollouts_no_writes_idx: read index-only by the clusters report
--     (level 1, the blind spot's merge join), the browser's reward-below and blind-spot links and their counts. They
--     keep run_id (in the key: the scans name it, and without it each would read the heap).
--   ledger_trained_differs_idx (013, partial: the trained reward differs): the browser's filter, answered by the
--     index alone; it holds only the mismatching entries, so its run_id costs nothing that matters.
--   ledger (ticket_id): "find this ticket" (browser search, one probe per run's partition).
--   ledger (trajectory_id): an entry's history and current entry (detail page, ingest's existence check through
--     trajectories), on the partition the trajectories lookup named.
--
-- Rebuilt without the leading run_id (their reads fetch the heap row anyway, so nothing index-only is lost):
--   ledger (step, id): export and archive in (step, id) keyset order; the browser's step range filter.
--   ledger (status, id): the browser's status filter (errors are rare: a few index entries, in key order).
--   ledger (deciding_guardrail, id): the deciding-guardrail filter and the clusters' level-1 links in key order.
--   ledger ((coalesce(reward, -1)), id): the browser's sort by reward (errors first at -1).
--   ledger (deciding_guardrail, (coalesce(reward, -1)), id) where a guardrail decided: sort by reward within one
--     deciding guardrail (009).
--   ledger_guardrails (code, step, ledger_id): the export's guardrail filter, keyset on (step, ledger_id) — the old
--     (run_id, code, step) left a sort of every entry of each step.
--   ledger_reasons (code, step): the browser's reason filter (the rarest code: a few hundred index entries).
--   rollouts (step, id): verity rescore --from/--to reads a run's rollouts in step order.
--
-- Changed:
--   ledger_reasons_signature_idx: (ledger_id) INCLUDE (code, tool, field) became (ledger_id) INCLUDE (code, tool,
--     field, run_id). The clusters' levels 2–3 and the level-2 links name r.run_id (to prune), which the old index
--     did not hold: every probe fetched its heap row. With run_id included the probes are index-only again.
--
-- Dropped (no page, report, export or bench read uses them on a partition; each was the planner's second choice):
--   ledger (run_id, reward, id): reward ranges below 0.9 are served by ledger_clusters_idx (is_current and reward <
--     0.9, the browser always asks for current entries), and ranges above it match most of a run, so the primary
--     key's order with a filter is the cheaper plan.
--   ledger (run_id, deciding_guardrail, step): a deciding guardrail with a step range reads (deciding_guardrail, id)
--     and filters the step; nothing else ordered by it.
--   ledger (run_id, category, step): a category is a fifth of a run; the primary key's order with a filter finds a
--     page in ~500 rows, and the clusters never filter on it first.
--   rollouts (run_id, group_id), rollouts (run_id, ticket_id): no query reads rollouts by group or by ticket (the
--     group page reads the ledger by group_id; the review page reads its case by ticket).
-- Fewer and narrower indexes are what keeps a large run's ingest from slowing down as it grows: every ingested entry
-- inserts into each of them (bench/scale.ts measures the ingest with and without this migration).

DROP INDEX "ledger_run_id_reward_id_idx";
DROP INDEX "ledger_run_id_deciding_guardrail_step_idx";
DROP INDEX "ledger_run_id_category_step_idx";

DROP INDEX "ledger_run_id_step_id_idx";
CREATE INDEX "ledger_step_id_idx" ON "ledger"("step", "id");
DROP INDEX "ledger_run_id_status_id_idx";
CREATE INDEX "ledger_status_id_idx" ON "ledger"("status", "id");
DROP INDEX "ledger_run_id_deciding_guardrail_id_idx";
CREATE INDEX "ledger_deciding_guardrail_id_idx" ON "ledger"("deciding_guardrail", "id");
DROP INDEX "ledger_run_id_reward_sort_id_idx";
CREATE INDEX "ledger_reward_sort_id_idx" ON "ledger"((coalesce("reward", -1)), "id");
DROP INDEX "ledger_run_id_deciding_reward_sort_id_idx";
CREATE INDEX "ledger_deciding_reward_sort_id_idx" ON "ledger"("deciding_guardrail", (coalesce("reward", -1)), "id")
  WHERE "deciding_guardrail" IS NOT NULL;

DROP INDEX "ledger_guardrails_run_id_code_step_idx";
CREATE INDEX "ledger_guardrails_code_step_ledger_id_idx" ON "ledger_guardrails"("code", "step", "ledger_id");

DROP INDEX "ledger_reasons_run_id_code_step_idx";
CREATE INDEX "ledger_reasons_code_step_idx" ON "ledger_reasons"("code", "step");
DROP INDEX "ledger_reasons_signature_idx";
CREATE INDEX "ledger_reasons_signature_idx" ON "ledger_reasons" ("ledger_id") INCLUDE ("code", "tool", "field", "run_id");

DROP INDEX "rollouts_run_id_step_id_idx";
CREATE INDEX "rollouts_step_id_idx" ON "rollouts"("step", "id");
DROP INDEX "rollouts_run_id_group_id_idx";
DROP INDEX "rollouts_run_id_ticket_id_idx";
