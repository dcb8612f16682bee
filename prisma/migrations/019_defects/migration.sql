-- Defects (issue 17 §3): an adjudication whose cause is "spec wrong" or "verifier rule wrong" opens one, or joins
-- the open one of the same case (spec) or guardrail (rule) in the same run. open → fixed (by a case version, or by
-- a verifier config for a rule) → verified (every linked item re-scored and now agreeing with its review: computed
-- after each re-score, never set by hand). A defect belongs to the run of its items' batches, so run_id leads its
-- key (docs/scale.md); the table is small (a few rows per audit batch) and stays whole. Status changes are recorded
-- in the activity log.
CREATE TYPE "DefectStatus" AS ENUM ('open', 'fixed', 'verified');
CREATE TYPE "DefectFixKind" AS ENUM ('case_version', 'config');

CREATE TABLE "defects" (
    "run_id" TEXT NOT NULL,
    "id" BIGSERIAL NOT NULL,
    "cause" "DisagreementCause" NOT NULL,
    "ticket_id" TEXT,
    "guardrail" TEXT,
    "status" "DefectStatus" NOT NULL DEFAULT 'open',
    "opened_by_id" INTEGER NOT NULL,
    "fix_kind" "DefectFixKind",
    "fix_ref" TEXT,
    "fix_note" TEXT NOT NULL DEFAULT '',
    "fixed_by_id" INTEGER,
    "fixed_at" TIMESTAMPTZ(3),
    "verified_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "defects_pkey" PRIMARY KEY ("run_id", "id")
);
CREATE INDEX "defects_status_id_idx" ON "defects"("status", "id");
CREATE INDEX "defects_guardrail_id_idx" ON "defects"("guardrail", "id");
CREATE INDEX "defects_ticket_id_idx" ON "defects"("ticket_id");

ALTER TABLE "defects" ADD CONSTRAINT "defects_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "defects" ADD CONSTRAINT "defects_opened_by_id_fkey" FOREIGN KEY ("opened_by_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "defects" ADD CONSTRAINT "defects_fixed_by_id_fkey" FOREIGN KEY ("fixed_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The items a defect explains, each through the adjudication that linked it.
CREATE TABLE "defect_items" (
    "run_id" TEXT NOT NULL,
    "defect_id" BIGINT NOT NULL,
    "item_id" BIGINT NOT NULL,
    "adjudication_id" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "defect_items_pkey" PRIMARY KEY ("run_id", "defect_id", "item_id")
);
CREATE INDEX "defect_items_item_id_idx" ON "defect_items"("item_id");

ALTER TABLE "defect_items" ADD CONSTRAINT "defect_items_run_id_defect_id_fkey" FOREIGN KEY ("run_id", "defect_id") REFERENCES "defects"("run_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "defect_items" ADD CONSTRAINT "defect_items_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "audit_items"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "defect_items" ADD CONSTRAINT "defect_items_adjudication_id_fkey" FOREIGN KEY ("adjudication_id") REFERENCES "adjudications"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
