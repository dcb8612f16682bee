-- Verity 001: the whole domain. Written to match prisma/schema.prisma exactly (proved by
-- test/schema-matches-migrations.int.test.ts); names follow Prisma's conventions so
-- `prisma migrate deploy` recognises the same objects.

CREATE TYPE "Role" AS ENUM ('admin', 'lead', 'researcher', 'annotator');
CREATE TYPE "ScoreStatus" AS ENUM ('scored', 'spec_error', 'input_error');
CREATE TYPE "ScoreSource" AS ENUM ('verifier', 'external');
CREATE TYPE "AuditItemStatus" AS ENUM ('open', 'done');
CREATE TYPE "DisagreementCause" AS ENUM ('spec_wrong', 'extraction_wrong', 'verifier_rule_wrong', 'annotator_wrong', 'ambiguous');

CREATE TABLE "cases" (
    "id" SERIAL NOT NULL,
    "ticket_id" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "customer_id" TEXT,
    "ticket" JSONB NOT NULL,
    "env_snapshot" JSONB NOT NULL,
    "verifier_spec" JSONB NOT NULL,
    "content_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "cases_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "cases_ticket_id_key" ON "cases"("ticket_id");
CREATE INDEX "cases_category_idx" ON "cases"("category");

CREATE TABLE "runs" (
    "id" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "thresholds" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "tool_registries" (
    "id" SERIAL NOT NULL,
    "hash" TEXT NOT NULL,
    "tools" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "tool_registries_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "tool_registries_hash_key" ON "tool_registries"("hash");

CREATE TABLE "rollouts" (
    "id" BIGSERIAL NOT NULL,
    "trajectory_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "group_id" TEXT NOT NULL,
    "sample_index" INTEGER NOT NULL,
    "ticket_id" TEXT NOT NULL,
    "steps" JSONB NOT NULL,
    "final_reply" TEXT NOT NULL,
    "sandbox" JSONB NOT NULL,
    "registry_id" INTEGER NOT NULL,
    "claims" JSONB,
    "tool_steps" INTEGER NOT NULL,
    "content_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "rollouts_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "rollouts_trajectory_id_key" ON "rollouts"("trajectory_id");
CREATE INDEX "rollouts_run_id_step_id_idx" ON "rollouts"("run_id", "step", "id");
CREATE INDEX "rollouts_run_id_group_id_idx" ON "rollouts"("run_id", "group_id");
CREATE INDEX "rollouts_run_id_ticket_id_idx" ON "rollouts"("run_id", "ticket_id");

CREATE TABLE "ledger" (
    "id" BIGSERIAL NOT NULL,
    "trajectory_id" TEXT NOT NULL,
    "rollout_id" BIGINT,
    "run_id" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "ticket_id" TEXT NOT NULL,
    "group_id" TEXT,
    "category" TEXT,
    "status" "ScoreStatus" NOT NULL,
    "source" "ScoreSource" NOT NULL,
    "verifier_version" TEXT,
    "config_hash" TEXT,
    "claims_source" TEXT,
    "raw_reward" DOUBLE PRECISION,
    "reward" DOUBLE PRECISION,
    "capped" BOOLEAN NOT NULL DEFAULT false,
    "outcome" DOUBLE PRECISION,
    "policy" DOUBLE PRECISION,
    "evidence" DOUBLE PRECISION,
    "efficiency" DOUBLE PRECISION,
    "communication" DOUBLE PRECISION,
    "deciding_guardrail" TEXT,
    "guardrail_mask" INTEGER NOT NULL DEFAULT 0,
    "guardrails" JSONB NOT NULL DEFAULT '[]',
    "reasons" JSONB NOT NULL DEFAULT '[]',
    "claims" JSONB,
    "handoff" BOOLEAN,
    "tool_steps" INTEGER,
    "supersedes_id" BIGINT,
    "is_current" BOOLEAN NOT NULL DEFAULT true,
    "content_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ledger_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "ledger_supersedes_id_key" ON "ledger"("supersedes_id");
CREATE INDEX "ledger_run_id_step_id_idx" ON "ledger"("run_id", "step", "id");
CREATE INDEX "ledger_run_id_reward_id_idx" ON "ledger"("run_id", "reward", "id");
CREATE INDEX "ledger_run_id_deciding_guardrail_step_idx" ON "ledger"("run_id", "deciding_guardrail", "step");
CREATE INDEX "ledger_run_id_category_step_idx" ON "ledger"("run_id", "category", "step");
CREATE INDEX "ledger_trajectory_id_idx" ON "ledger"("trajectory_id");

CREATE TABLE "ledger_guardrails" (
    "ledger_id" BIGINT NOT NULL,
    "run_id" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "code" TEXT NOT NULL,
    "cap" DOUBLE PRECISION NOT NULL,
    "deciding" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "ledger_guardrails_pkey" PRIMARY KEY ("ledger_id", "code")
);
CREATE INDEX "ledger_guardrails_run_id_code_step_idx" ON "ledger_guardrails"("run_id", "code", "step");

CREATE TABLE "ledger_reasons" (
    "ledger_id" BIGINT NOT NULL,
    "ord" INTEGER NOT NULL,
    "run_id" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "dimension" TEXT,
    "guardrail" TEXT,
    "code" TEXT NOT NULL,
    "tool" TEXT,
    "field" TEXT,
    CONSTRAINT "ledger_reasons_pkey" PRIMARY KEY ("ledger_id", "ord")
);
CREATE INDEX "ledger_reasons_run_id_code_step_idx" ON "ledger_reasons"("run_id", "code", "step");

CREATE TABLE "verifier_configs" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "verifier_configs_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "verifier_configs_hash_key" ON "verifier_configs"("hash");
CREATE UNIQUE INDEX "verifier_configs_name_version_key" ON "verifier_configs"("name", "version");

CREATE TABLE "audit_batches" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "step_from" INTEGER NOT NULL,
    "step_to" INTEGER NOT NULL,
    "rate" DOUBLE PRECISION NOT NULL,
    "salt" TEXT NOT NULL,
    "pick" TEXT NOT NULL,
    "min_per_stratum" INTEGER,
    "overlap_rate" DOUBLE PRECISION NOT NULL DEFAULT 0.1,
    "tolerance" DOUBLE PRECISION NOT NULL DEFAULT 0.1,
    "config_id" INTEGER,
    "manifest" JSONB,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "audit_batches_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "audit_batches_run_id_created_at_idx" ON "audit_batches"("run_id", "created_at");

CREATE TABLE "audit_items" (
    "id" BIGSERIAL NOT NULL,
    "batch_id" INTEGER NOT NULL,
    "rollout_id" BIGINT NOT NULL,
    "ledger_id" BIGINT NOT NULL,
    "trajectory_id" TEXT NOT NULL,
    "ticket_id" TEXT NOT NULL,
    "stratum" TEXT,
    "inclusion_prob" DOUBLE PRECISION NOT NULL,
    "reviews_needed" INTEGER NOT NULL DEFAULT 1,
    "reviews_done" INTEGER NOT NULL DEFAULT 0,
    "status" "AuditItemStatus" NOT NULL DEFAULT 'open',
    "lease_user_id" INTEGER,
    "lease_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "audit_items_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "audit_items_batch_id_trajectory_id_key" ON "audit_items"("batch_id", "trajectory_id");
CREATE INDEX "audit_items_batch_id_status_id_idx" ON "audit_items"("batch_id", "status", "id");
CREATE INDEX "audit_items_lease_user_id_idx" ON "audit_items"("lease_user_id");

CREATE TABLE "reviews" (
    "id" BIGSERIAL NOT NULL,
    "item_id" BIGINT NOT NULL,
    "reviewer_id" INTEGER NOT NULL,
    "outcome" DOUBLE PRECISION NOT NULL,
    "policy" DOUBLE PRECISION NOT NULL,
    "evidence" DOUBLE PRECISION NOT NULL,
    "efficiency" DOUBLE PRECISION NOT NULL,
    "communication" DOUBLE PRECISION NOT NULL,
    "guardrails" TEXT[],
    "reward" DOUBLE PRECISION NOT NULL,
    "claims" JSONB NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "seconds_spent" INTEGER NOT NULL,
    "supersedes_id" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "reviews_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "reviews_supersedes_id_key" ON "reviews"("supersedes_id");
CREATE INDEX "reviews_item_id_reviewer_id_idx" ON "reviews"("item_id", "reviewer_id");
CREATE INDEX "reviews_reviewer_id_created_at_idx" ON "reviews"("reviewer_id", "created_at");

CREATE TABLE "review_drafts" (
    "item_id" BIGINT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "body" JSONB NOT NULL,
    "seconds_spent" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "review_drafts_pkey" PRIMARY KEY ("item_id", "user_id")
);

CREATE TABLE "adjudications" (
    "id" BIGSERIAL NOT NULL,
    "item_id" BIGINT NOT NULL,
    "lead_id" INTEGER NOT NULL,
    "cause" "DisagreementCause" NOT NULL,
    "guardrail" TEXT,
    "note" TEXT NOT NULL DEFAULT '',
    "supersedes_id" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "adjudications_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "adjudications_supersedes_id_key" ON "adjudications"("supersedes_id");
CREATE INDEX "adjudications_item_id_idx" ON "adjudications"("item_id");
CREATE INDEX "adjudications_cause_idx" ON "adjudications"("cause");

CREATE TABLE "users" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "role" "Role" NOT NULL,
    "password_hash" TEXT,
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");
CREATE INDEX "sessions_expires_at_idx" ON "sessions"("expires_at");

CREATE TABLE "api_tokens" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_by_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "api_tokens_hash_key" ON "api_tokens"("hash");

CREATE TABLE "sign_in_failures" (
    "id" BIGSERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "ip" TEXT NOT NULL DEFAULT '',
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "sign_in_failures_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "sign_in_failures_email_at_idx" ON "sign_in_failures"("email", "at");

CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_id" INTEGER,
    "actor_label" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL DEFAULT '',
    "target_id" TEXT NOT NULL DEFAULT '',
    "details" JSONB NOT NULL DEFAULT '{}',
    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "audit_log_at_idx" ON "audit_log"("at");
CREATE INDEX "audit_log_action_at_idx" ON "audit_log"("action", "at");
CREATE INDEX "audit_log_actor_id_at_idx" ON "audit_log"("actor_id", "at");

-- Foreign keys
ALTER TABLE "rollouts" ADD CONSTRAINT "rollouts_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "rollouts" ADD CONSTRAINT "rollouts_registry_id_fkey" FOREIGN KEY ("registry_id") REFERENCES "tool_registries"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "ledger" ADD CONSTRAINT "ledger_rollout_id_fkey" FOREIGN KEY ("rollout_id") REFERENCES "rollouts"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "ledger" ADD CONSTRAINT "ledger_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "ledger" ADD CONSTRAINT "ledger_supersedes_id_fkey" FOREIGN KEY ("supersedes_id") REFERENCES "ledger"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "ledger_guardrails" ADD CONSTRAINT "ledger_guardrails_ledger_id_fkey" FOREIGN KEY ("ledger_id") REFERENCES "ledger"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "ledger_reasons" ADD CONSTRAINT "ledger_reasons_ledger_id_fkey" FOREIGN KEY ("ledger_id") REFERENCES "ledger"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "verifier_configs" ADD CONSTRAINT "verifier_configs_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "audit_batches" ADD CONSTRAINT "audit_batches_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "audit_batches" ADD CONSTRAINT "audit_batches_config_id_fkey" FOREIGN KEY ("config_id") REFERENCES "verifier_configs"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "audit_batches" ADD CONSTRAINT "audit_batches_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "audit_items" ADD CONSTRAINT "audit_items_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "audit_batches"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "audit_items" ADD CONSTRAINT "audit_items_rollout_id_fkey" FOREIGN KEY ("rollout_id") REFERENCES "rollouts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "audit_items" ADD CONSTRAINT "audit_items_ledger_id_fkey" FOREIGN KEY ("ledger_id") REFERENCES "ledger"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "audit_items" ADD CONSTRAINT "audit_items_lease_user_id_fkey" FOREIGN KEY ("lease_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "audit_items"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_reviewer_id_fkey" FOREIGN KEY ("reviewer_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_supersedes_id_fkey" FOREIGN KEY ("supersedes_id") REFERENCES "reviews"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "review_drafts" ADD CONSTRAINT "review_drafts_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "audit_items"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "review_drafts" ADD CONSTRAINT "review_drafts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "adjudications" ADD CONSTRAINT "adjudications_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "audit_items"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "adjudications" ADD CONSTRAINT "adjudications_lead_id_fkey" FOREIGN KEY ("lead_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "adjudications" ADD CONSTRAINT "adjudications_supersedes_id_fkey" FOREIGN KEY ("supersedes_id") REFERENCES "adjudications"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_actor_id_fkey" FOREIGN KEY ("actor_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The ledger, reviews, adjudications and the audit log are append-only. On the ledger the single permitted
-- update is flipping is_current from true to false when a newer entry supersedes the row.
CREATE FUNCTION verity_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION '% is append-only: rows cannot be deleted', TG_TABLE_NAME;
  END IF;
  IF TG_TABLE_NAME = 'ledger'
     AND OLD.is_current AND NOT NEW.is_current
     AND (to_jsonb(NEW) - 'is_current') = (to_jsonb(OLD) - 'is_current') THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION '% is append-only: rows cannot be changed', TG_TABLE_NAME;
END $$;

CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON "ledger"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only();
CREATE TRIGGER reviews_append_only BEFORE UPDATE OR DELETE ON "reviews"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only();
CREATE TRIGGER adjudications_append_only BEFORE UPDATE OR DELETE ON "adjudications"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only();
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON "audit_log"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only();
