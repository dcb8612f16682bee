-- Verity 029: what an ingest pays per ledger row to keep trajectory ids unique across runs and every row's run
-- existing, made cheaper without giving up either rule (docs/benchmarks.md, "external score records alone").
--
-- EXPLAIN ANALYZE of 20,000 external score records inserted into the ledger: 535 ms, of which the statement trigger
-- that records their trajectories 195 ms (its INSERT … SELECT DISTINCT … ON CONFLICT DO NOTHING into trajectories,
-- 175 ms, then the clash join) and the per-row foreign key on runs 63 ms. Each per-row foreign key on runs takes a
-- FOR KEY SHARE lock on the same runs row, once per row: 20,000 trajectories inserted took 126 ms with the foreign key
-- of trajectories on runs and 71 ms without.
--
-- 1. The trigger keeps recording whatever a writer did not (re-score, the demo and bench generators' SQL, any
-- other writer) and keeps refusing a trajectory another run holds with the same error. It first asks, in one join,
-- whether every trajectory of the statement is already recorded for its own run, and stops there when it is: the
-- ingest now records a batch's new trajectories itself, under the ledger write lock after reading which ones
-- exist, with a plain insert (lib/ingest/write-batch.ts recordTrajectories), which costs less than the speculative
-- insert of ON CONFLICT over a DISTINCT. Anything the join finds goes the old way, unchanged.
CREATE OR REPLACE FUNCTION verity_record_trajectories() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  clash record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_rows n LEFT JOIN "trajectories" t ON t.trajectory_id = n.trajectory_id
                  WHERE t.run_id IS DISTINCT FROM n.run_id) THEN
    RETURN NULL;
  END IF;
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

-- 2. A ledger or rollout row cannot be stored without its run's partition (LIST on run_id, no default partition),
-- so "its run exists" holds for every row as long as a partition exists only for an existing run. Then the per-row
-- foreign keys of rollouts and ledger on runs check again, row by row, what the partition already guarantees, and
-- they go. What they also did is kept here: a partition is made only for a run that exists (verity_run_partitions
-- refuses any other, as the foreign key refused its rows), and a run keeps its id and its row while any of its
-- partitions is attached (the foreign keys' RESTRICT on delete; their CASCADE on update could never move a stored
-- row, which the append-only triggers refuse, and moved nothing of an empty run's partitions, whose bounds keep the
-- old id). Archive detaches and drops a run's partitions before it deletes the run (lib/runs/archive.ts).
CREATE OR REPLACE FUNCTION verity_run_partitions(run text) RETURNS void LANGUAGE plpgsql AS $$
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
  IF NOT EXISTS (SELECT 1 FROM "runs" WHERE id = run) THEN
    RAISE EXCEPTION 'run % does not exist: a run''s partitions are made only for a run in runs', run
      USING ERRCODE = 'foreign_key_violation';
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

-- 3. trajectories (not partitioned) keeps the rule that its run exists by a statement trigger: the runs of the
-- statement's rows (one, for a batch of one run) are looked up and locked FOR KEY SHARE once each, as the foreign key
-- locked them once per row, so a run cannot be deleted or renamed under a transaction that records its trajectories
-- until it ends.
CREATE FUNCTION verity_trajectories_run_exists() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  missing text;
BEGIN
  PERFORM 1 FROM "runs" r WHERE r.id IN (SELECT DISTINCT n.run_id FROM new_rows n) FOR KEY SHARE;
  SELECT n.run_id INTO missing FROM new_rows n WHERE NOT EXISTS (SELECT 1 FROM "runs" r WHERE r.id = n.run_id) LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'run % does not exist: a trajectory is recorded only for a run in runs', missing
      USING ERRCODE = 'foreign_key_violation', COLUMN = 'run_id';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER trajectories_run_exists AFTER INSERT ON "trajectories"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION verity_trajectories_run_exists();
CREATE TRIGGER trajectories_run_exists_update AFTER UPDATE ON "trajectories"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION verity_trajectories_run_exists();

-- 4. What the foreign keys' RESTRICT on delete did (and their CASCADE on update, which could never move a stored row:
-- the append-only triggers refuse that, and an empty run's partitions keep the bound of the old id): a run keeps its
-- row and its id while any of its partitions is attached or any trajectory is recorded for it. Archive removes both
-- before it deletes the run (lib/runs/archive.ts); trajectories (run_id) is the index archive reads.
CREATE FUNCTION verity_run_keeps_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  part text;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.id = OLD.id THEN
    RETURN NEW;
  END IF;
  SELECT 'its partition ' || c.relname INTO part FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
   WHERE i.inhparent IN ('rollouts'::regclass, 'ledger'::regclass)
     AND pg_get_expr(c.relpartbound, c.oid) = format('FOR VALUES IN (%L)', OLD.id)
   LIMIT 1;
  IF NOT FOUND THEN
    SELECT 'trajectories in trajectories' INTO part FROM "trajectories" t WHERE t.run_id = OLD.id LIMIT 1;
  END IF;
  IF FOUND THEN
    RAISE EXCEPTION 'run % still has %: % it only after its partitions are detached and dropped and its trajectories deleted (verity run archive)',
      OLD.id, part, CASE TG_OP WHEN 'DELETE' THEN 'delete' ELSE 'rename' END USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END $$;
CREATE TRIGGER runs_keep_rows BEFORE DELETE OR UPDATE OF id ON "runs"
  FOR EACH ROW EXECUTE FUNCTION verity_run_keeps_rows();

-- Every row stored so far has its run (the foreign keys held until now).
ALTER TABLE "ledger" DROP CONSTRAINT "ledger_run_id_fkey";
ALTER TABLE "rollouts" DROP CONSTRAINT "rollouts_run_id_fkey";
ALTER TABLE "trajectories" DROP CONSTRAINT "trajectories_run_id_fkey";
