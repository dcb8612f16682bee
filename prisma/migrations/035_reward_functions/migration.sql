-- Verity 035: reward functions beside the ledger (docs/rewards.md). A function has a name and append-only versions
-- (canonical JSON under its SHA-256, author, reason — as verifier configs are stored); a reward run is one version run
-- over a scope of a training run; its results are run-scoped, partitioned by run_id as the ledger is (014), and
-- append-only. The ledger stays what the trainer trained on: nothing here writes to it.

CREATE TABLE "reward_functions" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "reward_functions_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "reward_functions_name_key" ON "reward_functions"("name");
ALTER TABLE "reward_functions" ADD CONSTRAINT "reward_functions_created_by_id_fkey" FOREIGN KEY ("created_by_id")
  REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

CREATE TABLE "reward_function_versions" (
    "id" SERIAL NOT NULL,
    "function_id" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "reward_function_versions_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "reward_function_versions_function_id_version_key" ON "reward_function_versions"("function_id", "version");
CREATE UNIQUE INDEX "reward_function_versions_function_id_hash_key" ON "reward_function_versions"("function_id", "hash");
ALTER TABLE "reward_function_versions" ADD CONSTRAINT "reward_function_versions_function_id_fkey" FOREIGN KEY ("function_id")
  REFERENCES "reward_functions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "reward_function_versions" ADD CONSTRAINT "reward_function_versions_created_by_id_fkey" FOREIGN KEY ("created_by_id")
  REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- A function's name and its versions never change (a new version is a new row); the user a row names may be deleted
-- (created_by_id set null by its foreign key), which is the one update allowed.
CREATE FUNCTION verity_reward_definition_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - 'created_by_id') = (to_jsonb(OLD) - 'created_by_id')
     AND NEW.created_by_id IS NULL THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'TRUNCATE' THEN
    RAISE EXCEPTION '% is append-only: it cannot be truncated', TG_TABLE_NAME;
  END IF;
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION '% is append-only: rows cannot be deleted', TG_TABLE_NAME;
  END IF;
  RAISE EXCEPTION '% is append-only: rows cannot be changed (store a new version)', TG_TABLE_NAME;
END $$;
CREATE TRIGGER reward_functions_append_only BEFORE UPDATE OR DELETE ON "reward_functions"
  FOR EACH ROW EXECUTE FUNCTION verity_reward_definition_kept();
CREATE TRIGGER reward_functions_no_truncate BEFORE TRUNCATE ON "reward_functions"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_reward_definition_kept();
CREATE TRIGGER reward_function_versions_append_only BEFORE UPDATE OR DELETE ON "reward_function_versions"
  FOR EACH ROW EXECUTE FUNCTION verity_reward_definition_kept();
CREATE TRIGGER reward_function_versions_no_truncate BEFORE TRUNCATE ON "reward_function_versions"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_reward_definition_kept();

-- A reward run: one version over one scope of a training run. Its row is the run's progress (done/total, status),
-- updated as it goes; its results are the append-only record. Deleted with its training run (verity run archive).
CREATE TABLE "reward_runs" (
    "id" SERIAL NOT NULL,
    "version_id" INTEGER NOT NULL,
    "run_id" TEXT NOT NULL,
    "scope" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "done" INTEGER NOT NULL DEFAULT 0,
    "total" INTEGER NOT NULL DEFAULT 0,
    "reused" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "judge_tokens" BIGINT NOT NULL DEFAULT 0,
    "cost" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "fresh" BOOLEAN NOT NULL DEFAULT false,
    "error" TEXT,
    "created_by_id" INTEGER,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "cancel_requested_at" TIMESTAMPTZ(3),
    CONSTRAINT "reward_runs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "reward_runs_status_check" CHECK ("status" IN ('running', 'done', 'cancelled', 'failed'))
);
CREATE INDEX "reward_runs_run_id_started_at_idx" ON "reward_runs"("run_id", "started_at");
CREATE INDEX "reward_runs_version_id_idx" ON "reward_runs"("version_id");
ALTER TABLE "reward_runs" ADD CONSTRAINT "reward_runs_version_id_fkey" FOREIGN KEY ("version_id")
  REFERENCES "reward_function_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "reward_runs" ADD CONSTRAINT "reward_runs_run_id_fkey" FOREIGN KEY ("run_id")
  REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "reward_runs" ADD CONSTRAINT "reward_runs_created_by_id_fkey" FOREIGN KEY ("created_by_id")
  REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- One result per (version, rollout) attempt. A failure is never a 0: reward is set exactly when status is ok. The
-- input hash (the rollout's and its case's content) is what a later run of the same version reuses a result by.
CREATE TABLE "reward_results" (
    "id" BIGSERIAL NOT NULL,
    "run_id" TEXT NOT NULL,
    "reward_run_id" INTEGER NOT NULL,
    "version_id" INTEGER NOT NULL,
    "rollout_id" BIGINT NOT NULL,
    "step" INTEGER NOT NULL,
    "ticket_id" TEXT NOT NULL,
    "reward" DOUBLE PRECISION,
    "components" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "error" TEXT,
    "latency_ms" DOUBLE PRECISION NOT NULL,
    "judge_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "input_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "reward_results_pkey" PRIMARY KEY ("run_id", "id"),
    CONSTRAINT "reward_results_status_check" CHECK ("status" IN ('ok', 'error', 'timeout', 'invalid_output', 'unavailable')),
    CONSTRAINT "reward_results_reward_iff_ok" CHECK (("status" = 'ok') = ("reward" IS NOT NULL)),
    CONSTRAINT "reward_results_reward_finite" CHECK ("reward" IS NULL OR "reward" BETWEEN -1e300 AND 1e300)
) PARTITION BY LIST ("run_id");
-- Inside a run's partition run_id narrows nothing (020): the keys lead with what a read looks up.
CREATE INDEX "reward_results_version_id_rollout_id_id_idx" ON "reward_results"("version_id", "rollout_id", "id");
CREATE INDEX "reward_results_reward_run_id_id_idx" ON "reward_results"("reward_run_id", "id");
ALTER TABLE "reward_results" ADD CONSTRAINT "reward_results_reward_run_id_fkey" FOREIGN KEY ("reward_run_id")
  REFERENCES "reward_runs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "reward_results" ADD CONSTRAINT "reward_results_version_id_fkey" FOREIGN KEY ("version_id")
  REFERENCES "reward_function_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
CREATE TRIGGER reward_results_append_only BEFORE UPDATE OR DELETE ON "reward_results"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only('reward_results');
CREATE TRIGGER reward_results_no_truncate BEFORE TRUNCATE ON "reward_results"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only('reward_results');

-- A run's reward_results partition is made with the run, beside its ledger partitions (verity_run_partitions), and
-- dropped with them by archive (lib/runs/archive.ts RUN_PARTITIONED_TABLES).
CREATE FUNCTION verity_reward_partition(run text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  part text := verity_run_partition_name('reward_results', run);
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
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, 'reward_results');
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%L)', 'reward_results', part, run);
  EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only(%L)',
                 part || '_no_truncate', part, 'reward_results');
END $$;
CREATE FUNCTION verity_run_reward_partition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM verity_reward_partition(NEW.id);
  RETURN NULL;
END $$;
CREATE TRIGGER runs_reward_partition AFTER INSERT ON "runs" FOR EACH ROW EXECUTE FUNCTION verity_run_reward_partition();
SELECT verity_reward_partition(id) FROM "runs";
