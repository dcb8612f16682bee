-- Verity 042: the trigram index of search by blocks of rollouts, not by rollout (docs/search.md, "The index, and why
-- this one"). 038 indexed every rollout's texts by trigram: some 250 index entries a rollout, most of them the same
-- as its neighbours' (the ticket's message, shared by a GRPO group and again at every step; the tool outputs of the
-- same order; JSON keys; common words), and their upkeep took the ingest's rate to about half of its rate without
-- search (docs/benchmarks.md, "Search"). Now a block of up to 16 rollouts of one run, written by one ingest batch,
-- holds the distinct words (runs of characters between spaces) of all its rollouts' texts, each between spaces
-- (" w1 … wn ", so a whole word is found as " w "), and the trigram index is on the blocks. A search finds the blocks
-- that hold every space-free part of a term, then checks each rollout of those blocks as written (rollout_search's
-- texts, by key), so it finds what it found before: a word or phrase inside a text has each of its space-free parts
-- inside one word of the text.
--
-- rollout_search keeps one row per rollout with its texts (what a search checks and the snippets show) and its CJK
-- pairs' index (038), which answers Chinese, Japanese and Korean terms as before. The blocks are partitioned by run
-- like it (a run's partition is made with the run, by the same trigger, and dropped by archive) and distributed by
-- run_id, co-located, on Citus (lib/db/distribute.ts). A block's rollouts are those of its run with ids from first_id
-- to last_id: ingest writes one run's rollouts under the run's lock, so no other rollout of the run falls between.

CREATE TABLE "rollout_search_blocks" (
    "run_id" TEXT NOT NULL,
    "first_id" BIGINT NOT NULL,
    "last_id" BIGINT NOT NULL,
    "words" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "rollout_search_blocks_pkey" PRIMARY KEY ("run_id", "first_id")
) PARTITION BY LIST ("run_id");
CREATE INDEX "rollout_search_blocks_words_trgm_idx" ON "rollout_search_blocks" USING gin ("words" gin_trgm_ops);

-- A run's partitions of rollout_search and of its blocks, made together (038's trigger on runs calls this).
CREATE OR REPLACE FUNCTION verity_search_partition(run text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t text;
  part text;
  bound text;
BEGIN
  FOREACH t IN ARRAY ARRAY['rollout_search', 'rollout_search_blocks'] LOOP
    part := verity_run_partition_name(t, run);
    IF to_regclass(format('%I', part)) IS NOT NULL THEN
      SELECT pg_get_expr(c.relpartbound, c.oid) INTO bound FROM pg_class c WHERE c.oid = to_regclass(format('%I', part));
      IF bound IS DISTINCT FROM format('FOR VALUES IN (%L)', run) THEN
        RAISE EXCEPTION 'partition % exists but is not run %''s (%)', part, run, coalesce(bound, 'not a partition');
      END IF;
      CONTINUE;
    END IF;
    PERFORM pg_advisory_xact_lock(1986359920, hashtext(run));
    IF to_regclass(format('%I', part)) IS NOT NULL THEN
      CONTINUE;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, t);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%L)', t, part, run);
  END LOOP;
END $$;
SELECT verity_search_partition(id) FROM "runs";

-- The blocks of a run's rollout_search rows, for a run that has none (its rows stored before this migration, or
-- copied in by a bench): 16 rollouts a block in id order, their words split at the characters that
-- lib/db/search-tokens.ts SEARCH_SPACE names (space, tab, line feed, carriage return, form feed, vertical tab).
CREATE FUNCTION verity_fill_search_blocks(run text) RETURNS void LANGUAGE sql AS $$
INSERT INTO "rollout_search_blocks" ("run_id", "first_id", "last_id", "words")
SELECT run, min(b.rollout_id), max(b.rollout_id),
       ' ' || coalesce((SELECT string_agg(DISTINCT w, ' ')
                          FROM unnest(array_agg(b.doc)) AS d(doc),
                               regexp_split_to_table(d.doc, '[' || chr(32) || chr(9) || chr(10) || chr(13) || chr(12) || chr(11) || ']+') AS w
                         WHERE w <> ''), '') || ' '
  FROM (
    SELECT s.rollout_id, (row_number() OVER (ORDER BY s.rollout_id) - 1) / 16 AS n,
           s.reply || E'\n' || s.tools || E'\n' || s.args || E'\n' || s.results || E'\n' || s.ticket AS doc
      FROM "rollout_search" s
     WHERE s.run_id = run
  ) b
 GROUP BY b.n
$$;
SELECT verity_fill_search_blocks(id) FROM "runs";

DROP INDEX "rollout_search_doc_trgm_idx";
-- The pairs' index holds only the rollouts that have pairs: most have none, and each such row cost the index an
-- entry (lib/search/sql.ts names the same condition, so the planner uses it).
DROP INDEX "rollout_search_cjk_idx";
CREATE INDEX "rollout_search_cjk_idx" ON "rollout_search" USING gin ("cjk") WHERE cardinality("cjk") > 0;
