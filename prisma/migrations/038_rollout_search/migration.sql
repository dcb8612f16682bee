-- Verity 038: full-text search over what a rollout said and did (docs/search.md). One row per rollout holds its
-- searchable texts by field — the final reply, its tool calls' names, arguments and outputs (one call a line), and
-- its ticket's message — out of the ledger's and the rollouts' hot pages, partitioned by run_id like them (014), so a
-- view of one run reads one partition, and distributed by run_id, co-located with rollouts, on Citus.
--
-- Two GIN indexes, chosen by measurement (docs/search.md, "Why this index"): trigrams (pg_trgm) over all the texts
-- joined answer case-insensitive ILIKE '%…%' for words, phrases and code-like text (finance.issue_refund, 59.99) that
-- word-based full-text search splits or stems; and the pairs of adjacent Chinese/Japanese/Korean characters (cjk),
-- written by ingest, answer a two-character query such as 退款, which gives pg_trgm no trigram at all. The texts are
-- checked as written after either index has found the candidates. Ingest writes a rollout's row in the transaction
-- that stores the rollout (lib/ledger/store/write-batch.ts), so a rollout is findable once its ingest answers.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE "rollout_search" (
    "run_id" TEXT NOT NULL,
    "rollout_id" BIGINT NOT NULL,
    "step" INTEGER NOT NULL,
    "reply" TEXT NOT NULL DEFAULT '',
    "tools" TEXT NOT NULL DEFAULT '',
    "args" TEXT NOT NULL DEFAULT '',
    "results" TEXT NOT NULL DEFAULT '',
    "ticket" TEXT NOT NULL DEFAULT '',
    "cjk" TEXT[] DEFAULT ARRAY[]::TEXT[],
    CONSTRAINT "rollout_search_pkey" PRIMARY KEY ("run_id", "rollout_id")
) PARTITION BY LIST ("run_id");
-- The joined texts as lib/search/sql.ts docSql writes them: a condition on the same expression uses this index.
CREATE INDEX "rollout_search_doc_trgm_idx" ON "rollout_search"
  USING gin (("reply" || ' ' || "tools" || ' ' || "args" || ' ' || "results" || ' ' || "ticket") gin_trgm_ops);
CREATE INDEX "rollout_search_cjk_idx" ON "rollout_search" USING gin ("cjk");

-- The pairs of adjacent CJK characters of a text, sorted and distinct, as lib/search/document.ts cjkBigrams makes
-- them (the same ranges: CJK ideographs and their extensions, kana, hangul). Used here to fill the rows of the
-- rollouts stored before this migration; ingest computes them itself.
CREATE FUNCTION verity_cjk_bigrams(t text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT substr(m.run[1], i, 2) ORDER BY substr(m.run[1], i, 2)), ARRAY[]::text[])
    FROM regexp_matches(t, '[㐀-䶿一-鿿豈-﫿぀-ゟ゠-ヿᄀ-ᇿ㄰-㆏가-힯𠀀-𯿽]{2,}', 'g') AS m(run),
         generate_series(1, char_length(m.run[1]) - 1) AS i
$$;

-- A run's partition is made with the run, beside its ledger partitions, and dropped with them by archive
-- (lib/runs/archive.ts RUN_PARTITIONED_TABLES).
CREATE FUNCTION verity_search_partition(run text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  part text := verity_run_partition_name('rollout_search', run);
  bound text;
BEGIN
  IF to_regclass(format('%I', part)) IS NOT NULL THEN
    SELECT pg_get_expr(c.relpartbound, c.oid) INTO bound FROM pg_class c WHERE c.oid = to_regclass(format('%I', part));
    IF bound IS DISTINCT FROM format('FOR VALUES IN (%L)', run) THEN
      RAISE EXCEPTION 'partition % exists but is not run %''s (%)', part, run, coalesce(bound, 'not a partition');
    END IF;
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(1986359920, hashtext(run));
  IF to_regclass(format('%I', part)) IS NOT NULL THEN
    RETURN;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, 'rollout_search');
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%L)', 'rollout_search', part, run);
END $$;
CREATE FUNCTION verity_run_search_partition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM verity_search_partition(NEW.id);
  RETURN NULL;
END $$;
CREATE TRIGGER runs_search_partition AFTER INSERT ON "runs" FOR EACH ROW EXECUTE FUNCTION verity_run_search_partition();
SELECT verity_search_partition(id) FROM "runs";

-- The rollouts stored before: their texts as ingest would write them (arguments and outputs that are not text as
-- their JSON; at most 20,000 characters a field, lib/search/document.ts MAX_FIELD_CHARS).
INSERT INTO "rollout_search" ("run_id", "rollout_id", "step", "reply", "tools", "args", "results", "ticket", "cjk")
SELECT x.run_id, x.id, x.step, x.reply, x.tools, x.args, x.results, x.ticket,
       verity_cjk_bigrams(x.reply || E'\n' || x.tools || E'\n' || x.args || E'\n' || x.results || E'\n' || x.ticket)
  FROM (
    SELECT r.run_id, r.id, r.step, left(r.final_reply, 20000) AS reply,
           left(coalesce(t.tools, ''), 20000) AS tools, left(coalesce(t.args, ''), 20000) AS args,
           left(coalesce(t.results, ''), 20000) AS results, left(coalesce(c.ticket ->> 'message', ''), 20000) AS ticket
      FROM "rollouts" r
      LEFT JOIN "cases" c ON c.ticket_id = r.ticket_id
      LEFT JOIN LATERAL (
        SELECT string_agg(coalesce(s.v ->> 'name', ''), E'\n' ORDER BY s.n) AS tools,
               string_agg(CASE WHEN jsonb_typeof(s.v -> 'input') = 'string' THEN s.v ->> 'input'
                               ELSE coalesce(s.v -> 'input', '{}'::jsonb)::text END, E'\n' ORDER BY s.n) AS args,
               string_agg(CASE WHEN jsonb_typeof(s.v -> 'output') = 'string' THEN s.v ->> 'output'
                               ELSE coalesce((s.v -> 'output')::text, '') END, E'\n' ORDER BY s.n) AS results
          FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r.steps) = 'array' THEN r.steps ELSE '[]'::jsonb END)
               WITH ORDINALITY AS s(v, n)
         WHERE s.v ->> 'type' = 'tool'
      ) t ON true
  ) x;
