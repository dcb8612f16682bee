-- Verity 007: indexes for the trajectory browser at a million rows per run (bench/browse, docs/benchmarks.md).
--
-- (run_id, id): the default view, a run's newest entries first, reads the run's entries in key order and stops
--   after a page; without it the scan walks the primary key across every run.
-- (run_id, status, id): error records (spec_error, input_error) are rare; filtering by status otherwise scans the
--   whole run to fill a page.
-- (ticket_id): "find this ticket" across runs is an equality lookup, not a scan.
-- (run_id, deciding_guardrail, id): a deciding-guardrail filter (the clusters' drill-through) reads its page in key
--   order instead of sorting every entry the guardrail decided (25k per million at the demo's rates).
CREATE INDEX "ledger_run_id_id_idx" ON "ledger"("run_id", "id");
CREATE INDEX "ledger_run_id_status_id_idx" ON "ledger"("run_id", "status", "id");
CREATE INDEX "ledger_ticket_id_idx" ON "ledger"("ticket_id");
CREATE INDEX "ledger_run_id_deciding_guardrail_id_idx" ON "ledger"("run_id", "deciding_guardrail", "id");
-- Sorting by reward: the browser sorts error records (no reward) as -1, so the index is on that expression. Prisma's
-- schema language cannot express expression indexes; lib/db/schema-shape.ts lists the SQL-only ones and the
-- schema test checks that they exist.
CREATE INDEX "ledger_run_id_reward_sort_id_idx" ON "ledger"("run_id", (coalesce("reward", -1)), "id");
