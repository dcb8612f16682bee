-- A reason signature (code + tool + field, the clusters' level 2 and the browser's `sig` filter) is a combination of
-- strongly dependent columns: the planner multiplied their selectivities and expected 2,596 rows where 66,580
-- matched (1,000,000 entries, bench/browse), then sorted every match instead of walking the key order. Multivariate
-- statistics give it the real frequency of each combination: the level-2 cluster link's first page went from
-- 420 ms to 3 ms. ANALYZE (and autovacuum) keep them current; nothing is added to ingest.
CREATE STATISTICS IF NOT EXISTS "ledger_reasons_signature_stats" (mcv, dependencies) ON "run_id", "code", "tool", "field" FROM "ledger_reasons";
ANALYZE "ledger_reasons";
