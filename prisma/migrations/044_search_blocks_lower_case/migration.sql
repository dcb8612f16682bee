-- The blocks' words in lower case (docs/search.md, "The index, and why this one"). A search looked a term's words up
-- in the blocks with ILIKE, which folds the case of each candidate block's whole text (its rollouts' distinct words,
-- about 2,000 characters) again for every word it checks: a phrase of common words whose blocks all have its
-- trigrams spent 0.37 s at 1 M rollouts checking 29,000 blocks that way (docs/benchmarks.md, "Search"). Ingest now
-- stores the words in lower case (lib/db/search-tokens.ts foldCase, character by character as lower() folds them)
-- and a search looks its words up in lower case with LIKE. The blocks stored before are folded here, run by run (one
-- call per run, so a distributed database folds each run on its worker), and only those with a capital letter are
-- written. The trigram index is unchanged: pg_trgm folds case itself.
CREATE OR REPLACE FUNCTION verity_fill_search_blocks(run text) RETURNS void LANGUAGE sql AS $$
INSERT INTO "rollout_search_blocks" ("run_id", "first_id", "last_id", "words")
SELECT run, min(b.rollout_id), max(b.rollout_id),
       ' ' || coalesce((SELECT string_agg(DISTINCT w, ' ')
                          FROM unnest(array_agg(b.doc)) AS d(doc),
                               regexp_split_to_table(d.doc, '[' || chr(32) || chr(9) || chr(10) || chr(13) || chr(12) || chr(11) || ']+') AS w
                         WHERE w <> ''), '') || ' '
  FROM (
    SELECT s.rollout_id, (row_number() OVER (ORDER BY s.rollout_id) - 1) / 16 AS n,
           lower(s.reply || E'\n' || s.tools || E'\n' || s.args || E'\n' || s.results || E'\n' || s.ticket) AS doc
      FROM "rollout_search" s
     WHERE s.run_id = run
  ) b
 GROUP BY b.n
$$;

CREATE FUNCTION verity_fold_search_blocks(run text) RETURNS void LANGUAGE sql AS $$
UPDATE "rollout_search_blocks" b SET "words" = lower(b.words) WHERE b.run_id = run AND b.words <> lower(b.words)
$$;
SELECT verity_fold_search_blocks(id) FROM "runs";
