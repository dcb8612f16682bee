-- Verity 014: the run-scoped tables are partitioned by run (PostgreSQL declarative partitioning, LIST on run_id).
--
-- Every screen, chart, export and bench reads one run, so one run's rows and indexes now live in their own tables:
-- a query with run_id = $1 is planned or pruned at run time to that run's partition, one run's indexes are the size
-- of that run (a new run's first batch does not land in a 10 GB index), and a run is archived by detaching and
-- dropping its partitions (`verity run archive`, lib/runs/archive.ts) instead of deleting millions of rows — which
-- the append-only triggers refuse anyway.
--
-- Partitioned, one partition per run, named <table>_r<16 hex of md5(run_id)> (run ids are any text up to 200
-- characters; the name is a fixed-length function of it, and verity_run_partitions checks the bound of an existing
-- name, so a hash collision is an error, never a shared partition):
--   rollouts, ledger, ledger_guardrails, ledger_reasons, step_rollups, step_guardrail_rollups, group_rollups.
-- Not partitioned: runs, cases, tool_registries (shared by every run), the audit tables (thousands of rows, not
-- millions; audit_items gains run_id so its foreign keys to ledger and rollouts name the partition), monitors and
-- cluster states (a few rows per run).
--
-- A partitioned table's primary key and unique constraints must contain the partition key, so they gain run_id:
--   rollouts (run_id, id), unique (run_id, trajectory_id); ledger (run_id, id), unique (run_id, supersedes_id);
--   ledger_guardrails (run_id, ledger_id, code); ledger_reasons (run_id, ledger_id, ord).
-- Foreign keys between these tables gain run_id too, so an entry's rollout, its superseded entry and its guardrail
-- and reason rows are always in the same run's partitions (which is also what Citus needs: docs/scale.md). Their
-- delete rule is RESTRICT: nothing deletes these rows (012's triggers), and SET NULL on a composite key would null
-- run_id.
--
-- Trajectory ids stay unique across runs. They used to be by rollouts_trajectory_id_key; a partitioned table cannot
-- hold a unique index without run_id, so the small unpartitioned table "trajectories" (trajectory_id primary key →
-- run_id) holds the rule and answers "which run is this trajectory in?" for the pages addressed by trajectory id
-- alone (the rollout detail page, review and adjudication pages) and for ingest's existence checks: one primary-key
-- probe, then a query on one partition, instead of probing every run's partition. Statement triggers on rollouts
-- and ledger keep it complete whatever inserts the rows (ingest, re-score, the demo and bench generators' SQL), and
-- refuse a trajectory that another run already holds.
--
-- Indexes, reviewed against what reads them (bench/browse.ts, bench/clusters.ts, bench/scale.ts, the pages):
--   rollouts (run_id, id) primary key: ledger → rollout joins, audit items, the run page's group and detail reads.
--   rollouts (run_id, trajectory_id) unique: ingest's "is it stored?" check after the trajectories lookup; detail.
--   rollouts (run_id, step, id): re-score reads a run's rollouts in step order (verity rescore --from/--to).
--   rollouts (run_id, group_id): the group view (the K rollouts of one GRPO group).
--   rollouts (run_id, ticket_id): the review page's other rollouts of the same ticket.
--   rollouts_no_writes_idx (partial): the clusters' blind-spot semi-join (005).
--   ledger (run_id, id) primary key: the browser's default order (newest first) and every by-id read. It replaces
--     007's ledger_run_id_id_idx, which had the same columns and is dropped.
--   ledger (run_id, supersedes_id) unique: the successor check of 012's deferred trigger, the history chain.
--   ledger (run_id, step, id): exports and the browser's step range filter.
--   ledger (run_id, status, id): the browser's status filter (errors are rare).
--   ledger (run_id, reward, id): reward range filter and reward order; ledger_run_id_reward_sort_id_idx (007) for
--     the browser's sort by reward with errors at -1; ledger_run_id_deciding_reward_sort_id_idx (009).
--   ledger (run_id, deciding_guardrail, step) and (run_id, deciding_guardrail, id): the deciding guardrail filter by
--     step range and in key order (the clusters' drill-through).
--   ledger (run_id, category, step): the category filter.
--   ledger (trajectory_id): an entry's history, on the partition the trajectories lookup named.
--   ledger (ticket_id): "find this ticket" across runs (one probe per run's partition).
--   ledger_clusters_idx, ledger_handoffs_idx (partial, 005): the clusters report, index-only.
--   ledger_trained_differs_idx (partial, 013): the browser's "trained reward differs" filter.
--   ledger_guardrails (run_id, code, step), ledger_reasons (run_id, code, step): hit rates, the guardrail and reason
--     filters; ledger_reasons_signature_idx (005): the clusters' levels 2 and 3, index-only.
-- Statistics objects (005's rollouts_no_writes_stats, 010's ledger_reasons_signature_stats) are made on every
-- partition as well as the parent: the planner reads a partition's own statistics when it scans one partition.
--
-- Trajectories (the big JSON: steps, sandbox) stay in rollouts, never in the ledger rows the browser pages read.
--
-- Existing data is moved: each table is renamed aside with its indexes, its partitioned successor is created with
-- the same columns (LIKE, so 013's trained_reward and the id sequences come along), one partition per run is made,
-- the rows are copied (ids, supersession and is_current as they were), the old tables are dropped, and the
-- triggers are made again. It runs in the migration's one transaction, so a failure leaves the database as it was.

-- 1. The append-only rule names the logical table (a row trigger on a partition reports the partition's name in
-- TG_TABLE_NAME, so the table it guards is given as the trigger's argument).
CREATE OR REPLACE FUNCTION verity_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tbl text := coalesce(TG_ARGV[0], TG_TABLE_NAME);
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    RAISE EXCEPTION '% is append-only: it cannot be truncated', tbl;
  END IF;
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION '% is append-only: rows cannot be deleted', tbl;
  END IF;
  IF tbl = 'ledger' THEN
    IF OLD.is_current AND NOT NEW.is_current
       AND (to_jsonb(NEW) - 'is_current') = (to_jsonb(OLD) - 'is_current') THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION '% is append-only: rows cannot be changed', tbl;
END $$;

-- The successor is looked up in the entry's own run (the unique index on (run_id, supersedes_id)).
CREATE OR REPLACE FUNCTION verity_ledger_has_successor() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "ledger" s
                  WHERE s.run_id = NEW.run_id AND s.supersedes_id = NEW.id AND s.trajectory_id = NEW.trajectory_id) THEN
    RAISE EXCEPTION 'ledger entry % (trajectory %) is no longer current but no entry supersedes it: is_current is cleared only by the transaction that inserts its successor', NEW.id, NEW.trajectory_id
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NULL;
END $$;

-- 2. Set the unpartitioned tables aside, with their index and statistics names (index names are schema-wide).
DROP STATISTICS IF EXISTS "rollouts_no_writes_stats";
DROP STATISTICS IF EXISTS "ledger_reasons_signature_stats";
ALTER TABLE "audit_items" DROP CONSTRAINT "audit_items_rollout_id_fkey";
ALTER TABLE "audit_items" DROP CONSTRAINT "audit_items_ledger_id_fkey";
DO $$
DECLARE
  t text;
  ix record;
  n int := 0;
BEGIN
  FOREACH t IN ARRAY ARRAY['rollouts', 'ledger', 'ledger_guardrails', 'ledger_reasons', 'step_rollups',
                           'step_guardrail_rollups', 'group_rollups'] LOOP
    EXECUTE format('ALTER TABLE %I RENAME TO %I', t, t || '_unpartitioned');
    FOR ix IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
               WHERE i.indrelid = (t || '_unpartitioned')::regclass LOOP
      n := n + 1;
      EXECUTE format('ALTER INDEX %I RENAME TO %I', ix.relname, left('unpartitioned_' || n || '_' || ix.relname, 63));
    END LOOP;
  END LOOP;
END $$;

-- 3. The partitioned tables, same columns and defaults (the id sequences keep counting from where they were).
CREATE TABLE "rollouts" (LIKE "rollouts_unpartitioned" INCLUDING DEFAULTS) PARTITION BY LIST ("run_id");
CREATE TABLE "ledger" (LIKE "ledger_unpartitioned" INCLUDING DEFAULTS) PARTITION BY LIST ("run_id");
CREATE TABLE "ledger_guardrails" (LIKE "ledger_guardrails_unpartitioned" INCLUDING DEFAULTS) PARTITION BY LIST ("run_id");
CREATE TABLE "ledger_reasons" (LIKE "ledger_reasons_unpartitioned" INCLUDING DEFAULTS) PARTITION BY LIST ("run_id");
CREATE TABLE "step_rollups" (LIKE "step_rollups_unpartitioned" INCLUDING DEFAULTS) PARTITION BY LIST ("run_id");
CREATE TABLE "step_guardrail_rollups" (LIKE "step_guardrail_rollups_unpartitioned" INCLUDING DEFAULTS) PARTITION BY LIST ("run_id");
CREATE TABLE "group_rollups" (LIKE "group_rollups_unpartitioned" INCLUDING DEFAULTS) PARTITION BY LIST ("run_id");
ALTER SEQUENCE "rollouts_id_seq" OWNED BY "rollouts"."id";
ALTER SEQUENCE "ledger_id_seq" OWNED BY "ledger"."id";

ALTER TABLE "rollouts" ADD CONSTRAINT "rollouts_pkey" PRIMARY KEY ("run_id", "id");
CREATE UNIQUE INDEX "rollouts_run_id_trajectory_id_key" ON "rollouts"("run_id", "trajectory_id");
CREATE INDEX "rollouts_run_id_step_id_idx" ON "rollouts"("run_id", "step", "id");
CREATE INDEX "rollouts_run_id_group_id_idx" ON "rollouts"("run_id", "group_id");
CREATE INDEX "rollouts_run_id_ticket_id_idx" ON "rollouts"("run_id", "ticket_id");
CREATE INDEX "rollouts_no_writes_idx" ON "rollouts" ("run_id", "id") WHERE ("sandbox" -> 'writes') = '[]'::jsonb;
CREATE STATISTICS "rollouts_no_writes_stats" ON ("sandbox" -> 'writes') FROM "rollouts";

ALTER TABLE "ledger" ADD CONSTRAINT "ledger_pkey" PRIMARY KEY ("run_id", "id");
CREATE UNIQUE INDEX "ledger_run_id_supersedes_id_key" ON "ledger"("run_id", "supersedes_id");
CREATE INDEX "ledger_run_id_step_id_idx" ON "ledger"("run_id", "step", "id");
CREATE INDEX "ledger_run_id_status_id_idx" ON "ledger"("run_id", "status", "id");
CREATE INDEX "ledger_ticket_id_idx" ON "ledger"("ticket_id");
CREATE INDEX "ledger_run_id_reward_id_idx" ON "ledger"("run_id", "reward", "id");
CREATE INDEX "ledger_run_id_deciding_guardrail_step_idx" ON "ledger"("run_id", "deciding_guardrail", "step");
CREATE INDEX "ledger_run_id_deciding_guardrail_id_idx" ON "ledger"("run_id", "deciding_guardrail", "id");
CREATE INDEX "ledger_run_id_category_step_idx" ON "ledger"("run_id", "category", "step");
CREATE INDEX "ledger_trajectory_id_idx" ON "ledger"("trajectory_id");
CREATE INDEX "ledger_run_id_reward_sort_id_idx" ON "ledger"("run_id", (coalesce("reward", -1)), "id");
CREATE INDEX "ledger_run_id_deciding_reward_sort_id_idx" ON "ledger"("run_id", "deciding_guardrail", (coalesce("reward", -1)), "id")
  WHERE "deciding_guardrail" IS NOT NULL;
CREATE INDEX "ledger_clusters_idx" ON "ledger" ("run_id", "reward", "id")
    INCLUDE ("step", "raw_reward", "deciding_guardrail", "guardrail_mask", "category", "ticket_id",
             "outcome", "policy", "evidence", "efficiency", "communication")
    WHERE "is_current" AND "reward" < 0.9;
CREATE INDEX "ledger_handoffs_idx" ON "ledger" ("run_id", "rollout_id")
    INCLUDE ("step", "reward", "raw_reward", "ticket_id", "category", "id")
    WHERE "is_current" AND "handoff" AND "guardrail_mask" = 0;
CREATE INDEX "ledger_trained_differs_idx" ON "ledger" ("run_id", "id")
  WHERE "is_current" AND abs("trained_reward" - "reward") > 1e-6;

ALTER TABLE "ledger_guardrails" ADD CONSTRAINT "ledger_guardrails_pkey" PRIMARY KEY ("run_id", "ledger_id", "code");
CREATE INDEX "ledger_guardrails_run_id_code_step_idx" ON "ledger_guardrails"("run_id", "code", "step");

ALTER TABLE "ledger_reasons" ADD CONSTRAINT "ledger_reasons_pkey" PRIMARY KEY ("run_id", "ledger_id", "ord");
CREATE INDEX "ledger_reasons_run_id_code_step_idx" ON "ledger_reasons"("run_id", "code", "step");
CREATE INDEX "ledger_reasons_signature_idx" ON "ledger_reasons" ("ledger_id") INCLUDE ("code", "tool", "field");
CREATE STATISTICS "ledger_reasons_signature_stats" (mcv, dependencies) ON "run_id", "code", "tool", "field" FROM "ledger_reasons";

ALTER TABLE "step_rollups" ADD CONSTRAINT "step_rollups_pkey" PRIMARY KEY ("run_id", "step");
ALTER TABLE "step_guardrail_rollups" ADD CONSTRAINT "step_guardrail_rollups_pkey" PRIMARY KEY ("run_id", "step", "code");
ALTER TABLE "group_rollups" ADD CONSTRAINT "group_rollups_pkey" PRIMARY KEY ("run_id", "step", "group_id");

-- 4. A run's partitions: made by the first ingest (or re-score, demo, sample) of the run, inside its transaction,
-- through this function. A per-run advisory lock makes concurrent first writers of the same run wait for each other;
-- the second then finds the partitions made (to_regclass sees the committed catalog). Each partition is created
-- standalone and then ATTACHed: ATTACH PARTITION takes SHARE UPDATE EXCLUSIVE on the parent, so the other runs'
-- readers and writers go on, where CREATE TABLE … PARTITION OF would lock the whole table until the batch commits.
-- The partition copies the parent's CHECK constraints (ATTACH requires them). Partitions get what the parent cannot
-- pass on: the TRUNCATE refusal (statement triggers are not inherited) and
-- the statistics objects.
CREATE FUNCTION verity_run_partition_name(tbl text, run text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT tbl || '_r' || left(md5(run), 16)
$$;

CREATE FUNCTION verity_run_partitions(run text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t text;
  part text;
  bound text;
BEGIN
  part := verity_run_partition_name('ledger', run);
  IF to_regclass(format('%I', part)) IS NOT NULL THEN
    SELECT pg_get_expr(c.relpartbound, c.oid) INTO bound FROM pg_class c WHERE c.oid = to_regclass(format('%I', part));
    IF bound = format('FOR VALUES IN (%L)', run) THEN
      RETURN;
    END IF;
  END IF;
  PERFORM pg_advisory_xact_lock(1986359920, hashtext(run));
  FOREACH t IN ARRAY ARRAY['rollouts', 'ledger', 'ledger_guardrails', 'ledger_reasons', 'step_rollups',
                           'step_guardrail_rollups', 'group_rollups'] LOOP
    part := verity_run_partition_name(t, run);
    IF to_regclass(format('%I', part)) IS NOT NULL THEN
      SELECT pg_get_expr(c.relpartbound, c.oid) INTO bound FROM pg_class c WHERE c.oid = to_regclass(format('%I', part));
      IF bound IS DISTINCT FROM format('FOR VALUES IN (%L)', run) THEN
        RAISE EXCEPTION 'partition % exists but is not run %''s (%): run ids % collide on their partition name', part, run,
          coalesce(bound, 'not a partition'), run;
      END IF;
      CONTINUE;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, t);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%L)', t, part, run);
    IF t IN ('rollouts', 'ledger') THEN
      EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only(%L)',
                     part || '_no_truncate', part, t);
    END IF;
    IF t = 'rollouts' THEN
      EXECUTE format('CREATE STATISTICS %I ON ("sandbox" -> ''writes'') FROM %I', part || '_no_writes_stats', part);
    ELSIF t = 'ledger_reasons' THEN
      EXECUTE format('CREATE STATISTICS %I (mcv, dependencies) ON "run_id", "code", "tool", "field" FROM %I',
                     part || '_signature_stats', part);
    END IF;
  END LOOP;
END $$;

-- A run's partitions are made with the run: ingest creates a run by its first rollout or score record
-- (lib/ingest/write-batch.ts ensureRuns, INSERT … ON CONFLICT DO NOTHING, which fires this only for a run it really
-- inserts), in the same transaction as that batch's rows. Two concurrent first ingests of one run: the second's
-- insert waits on the first's uncommitted runs row and then does nothing, so the partitions are made once.
CREATE FUNCTION verity_run_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM verity_run_partitions(NEW.id);
  RETURN NULL;
END $$;
CREATE TRIGGER runs_partitions AFTER INSERT ON "runs" FOR EACH ROW EXECUTE FUNCTION verity_run_created();

-- 5. One partition set per existing run, then the rows, as they were.
SELECT verity_run_partitions(r.run_id)
  FROM (SELECT id AS run_id FROM "runs"
        UNION SELECT run_id FROM "rollouts_unpartitioned" UNION SELECT run_id FROM "ledger_unpartitioned"
        UNION SELECT run_id FROM "step_rollups_unpartitioned" UNION SELECT run_id FROM "step_guardrail_rollups_unpartitioned"
        UNION SELECT run_id FROM "group_rollups_unpartitioned" ORDER BY 1) r;

INSERT INTO "rollouts" SELECT * FROM "rollouts_unpartitioned";
INSERT INTO "ledger" SELECT * FROM "ledger_unpartitioned";
INSERT INTO "ledger_guardrails" SELECT * FROM "ledger_guardrails_unpartitioned";
INSERT INTO "ledger_reasons" SELECT * FROM "ledger_reasons_unpartitioned";
INSERT INTO "step_rollups" SELECT * FROM "step_rollups_unpartitioned";
INSERT INTO "step_guardrail_rollups" SELECT * FROM "step_guardrail_rollups_unpartitioned";
INSERT INTO "group_rollups" SELECT * FROM "group_rollups_unpartitioned";

-- The unpartitioned tables go, with their triggers and the foreign keys that pointed at them.
DROP TABLE "ledger_guardrails_unpartitioned", "ledger_reasons_unpartitioned", "ledger_unpartitioned",
  "rollouts_unpartitioned", "step_rollups_unpartitioned", "step_guardrail_rollups_unpartitioned",
  "group_rollups_unpartitioned";

-- 6. Foreign keys, run_id first wherever both sides are run-scoped.
ALTER TABLE "rollouts" ADD CONSTRAINT "rollouts_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "rollouts" ADD CONSTRAINT "rollouts_registry_id_fkey" FOREIGN KEY ("registry_id") REFERENCES "tool_registries"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "ledger" ADD CONSTRAINT "ledger_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "ledger" ADD CONSTRAINT "ledger_run_id_rollout_id_fkey" FOREIGN KEY ("run_id", "rollout_id") REFERENCES "rollouts"("run_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "ledger" ADD CONSTRAINT "ledger_run_id_supersedes_id_fkey" FOREIGN KEY ("run_id", "supersedes_id") REFERENCES "ledger"("run_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "ledger_guardrails" ADD CONSTRAINT "ledger_guardrails_run_id_ledger_id_fkey" FOREIGN KEY ("run_id", "ledger_id") REFERENCES "ledger"("run_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "ledger_reasons" ADD CONSTRAINT "ledger_reasons_run_id_ledger_id_fkey" FOREIGN KEY ("run_id", "ledger_id") REFERENCES "ledger"("run_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- audit_items name the run of the rollout and entry they sample (always their batch's run).
ALTER TABLE "audit_items" ADD COLUMN "run_id" TEXT;
UPDATE "audit_items" i SET "run_id" = b."run_id" FROM "audit_batches" b WHERE b."id" = i."batch_id";
ALTER TABLE "audit_items" ALTER COLUMN "run_id" SET NOT NULL;
ALTER TABLE "audit_items" ADD CONSTRAINT "audit_items_run_id_rollout_id_fkey" FOREIGN KEY ("run_id", "rollout_id") REFERENCES "rollouts"("run_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "audit_items" ADD CONSTRAINT "audit_items_run_id_ledger_id_fkey" FOREIGN KEY ("run_id", "ledger_id") REFERENCES "ledger"("run_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- 7. Append-only, as 012 had it: row triggers on the parent are cloned to every partition, present and future.
CREATE TRIGGER rollouts_append_only BEFORE UPDATE OR DELETE ON "rollouts"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only('rollouts');
CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON "ledger"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only('ledger');
CREATE TRIGGER rollouts_no_truncate BEFORE TRUNCATE ON "rollouts"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only('rollouts');
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON "ledger"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only('ledger');
CREATE CONSTRAINT TRIGGER ledger_superseded_has_successor AFTER UPDATE OF is_current ON "ledger"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.is_current AND NOT NEW.is_current)
  EXECUTE FUNCTION verity_ledger_has_successor();

-- 8. Trajectory → run.
CREATE TABLE "trajectories" (
    "trajectory_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    CONSTRAINT "trajectories_pkey" PRIMARY KEY ("trajectory_id")
);
-- Read by archive (the run's rows go with its partitions).
CREATE INDEX "trajectories_run_id_idx" ON "trajectories"("run_id");
ALTER TABLE "trajectories" ADD CONSTRAINT "trajectories_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

INSERT INTO "trajectories" ("trajectory_id", "run_id")
SELECT DISTINCT ON (trajectory_id) trajectory_id, run_id
  FROM (SELECT trajectory_id, run_id, 0 AS pref FROM "rollouts" UNION ALL SELECT trajectory_id, run_id, 1 FROM "ledger") t
 ORDER BY trajectory_id, pref;

-- Once per inserting statement (a COPY of a batch is one statement): new trajectories are recorded, and a trajectory
-- that belongs to another run is refused as the unique rule it replaces would have (23505).
CREATE FUNCTION verity_record_trajectories() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  clash record;
BEGIN
  INSERT INTO "trajectories" ("trajectory_id", "run_id")
  SELECT DISTINCT n.trajectory_id, n.run_id FROM new_rows n
  ON CONFLICT ("trajectory_id") DO NOTHING;
  SELECT n.trajectory_id, n.run_id, t.run_id AS held_by INTO clash
    FROM new_rows n JOIN "trajectories" t ON t.trajectory_id = n.trajectory_id
   WHERE t.run_id <> n.run_id LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'trajectory % belongs to run %, not %: trajectory ids are unique across runs', clash.trajectory_id,
      clash.held_by, clash.run_id USING ERRCODE = 'unique_violation', COLUMN = 'trajectory_id';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER rollouts_record_trajectories AFTER INSERT ON "rollouts"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION verity_record_trajectories();
CREATE TRIGGER ledger_record_trajectories AFTER INSERT ON "ledger"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION verity_record_trajectories();

ANALYZE "rollouts", "ledger", "ledger_guardrails", "ledger_reasons", "trajectories";
