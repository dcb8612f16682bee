-- The CJK pairs of rollouts whose pairs were looked for in part of their texts, written again. A console process that
-- had run a search with Chinese (or Japanese, Korean) text and then ingested rollouts through its API looked for the
-- next rollouts' pairs only past the position where the search's check had left a shared pattern (fixed in
-- lib/db/search-tokens.ts): their rows missed the pairs near the start of their texts, and a search by those pairs
-- could not find them. Each run's rows are read once; a row is written only where its stored pairs differ from its
-- texts' (verity_cjk_bigrams, 038: the same pairs ingest computes). One call per run, so a distributed database
-- (docs/scale.md) repairs each run on its worker.
CREATE FUNCTION verity_repair_search_pairs(run text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "rollout_search" s
     SET "cjk" = verity_cjk_bigrams(s.reply || E'\n' || s.tools || E'\n' || s.args || E'\n' || s.results || E'\n' || s.ticket)
   WHERE s.run_id = run
     AND s.cjk IS DISTINCT FROM
         verity_cjk_bigrams(s.reply || E'\n' || s.tools || E'\n' || s.args || E'\n' || s.results || E'\n' || s.ticket);
END $$;
SELECT verity_repair_search_pairs(id) FROM "runs";
