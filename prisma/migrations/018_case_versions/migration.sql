-- Verity 018: cases have versions (docs/cases.md). A case's spec (and snapshot) can be revised; every version is
-- kept, append-only, in case_versions with its author, reason, what it answers and its hash, and each ledger entry
-- records the case version that scored it.
--
-- cases keeps one row per ticket holding the current version (every reader of cases — ingest's case cache, the
-- re-score, exports, the agreement's case slots — reads the current case as before); its version column says which.
-- case_versions holds them all, version 1 included, keyed by (ticket_id, version): cases are global, not run-scoped.

ALTER TABLE "cases" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

CREATE TABLE "case_versions" (
  "ticket_id" TEXT NOT NULL,
  "version" INTEGER NOT NULL,
  "category" TEXT NOT NULL,
  "customer_id" TEXT,
  "ticket" JSONB NOT NULL,
  "env_snapshot" JSONB NOT NULL,
  "verifier_spec" JSONB NOT NULL,
  "content_hash" TEXT NOT NULL,
  "author_id" INTEGER,
  "reason" TEXT NOT NULL DEFAULT '',
  "answers_adjudication_ids" BIGINT[],
  "answers_cluster" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "case_versions_pkey" PRIMARY KEY ("ticket_id", "version")
);
ALTER TABLE "case_versions" ADD CONSTRAINT "case_versions_ticket_id_fkey" FOREIGN KEY ("ticket_id") REFERENCES "cases"("ticket_id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "case_versions" ADD CONSTRAINT "case_versions_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Every existing case is its own version 1.
INSERT INTO "case_versions" ("ticket_id", "version", "category", "customer_id", "ticket", "env_snapshot",
                             "verifier_spec", "content_hash", "answers_adjudication_ids", "created_at")
SELECT "ticket_id", 1, "category", "customer_id", "ticket", "env_snapshot", "verifier_spec", "content_hash", '{}',
       "created_at"
  FROM "cases";

-- Whatever inserts a case (ingest's COPY, the importers, the demo), its version 1 is recorded with it.
CREATE FUNCTION verity_case_first_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "case_versions" ("ticket_id", "version", "category", "customer_id", "ticket", "env_snapshot",
                               "verifier_spec", "content_hash", "answers_adjudication_ids", "created_at")
  VALUES (NEW."ticket_id", NEW."version", NEW."category", NEW."customer_id", NEW."ticket", NEW."env_snapshot",
          NEW."verifier_spec", NEW."content_hash", '{}', NEW."created_at");
  RETURN NULL;
END $$;
CREATE TRIGGER cases_first_version AFTER INSERT ON "cases"
  FOR EACH ROW EXECUTE FUNCTION verity_case_first_version();

-- cases stays append-only but for one change: the row advances to the next version, whose case_versions row the
-- same transaction has already inserted with exactly the new content. Nothing else about a case ever changes, and
-- no case is ever deleted (012's message for anything else).
CREATE FUNCTION verity_case_advance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'cases is append-only: rows cannot be deleted';
  END IF;
  IF NEW."id" = OLD."id" AND NEW."ticket_id" = OLD."ticket_id" AND NEW."created_at" = OLD."created_at"
     AND NEW."version" = OLD."version" + 1
     AND EXISTS (SELECT 1 FROM "case_versions" v
                  WHERE v."ticket_id" = NEW."ticket_id" AND v."version" = NEW."version"
                    AND v."content_hash" = NEW."content_hash" AND v."category" = NEW."category"
                    AND v."customer_id" IS NOT DISTINCT FROM NEW."customer_id" AND v."ticket" = NEW."ticket"
                    AND v."env_snapshot" = NEW."env_snapshot" AND v."verifier_spec" = NEW."verifier_spec") THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'cases is append-only: rows cannot be changed (a case advances only to its next recorded version)';
END $$;
DROP TRIGGER "cases_append_only" ON "cases";
CREATE TRIGGER cases_append_only BEFORE UPDATE OR DELETE ON "cases"
  FOR EACH ROW EXECUTE FUNCTION verity_case_advance();

CREATE TRIGGER case_versions_append_only BEFORE UPDATE OR DELETE ON "case_versions"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only();
CREATE TRIGGER case_versions_no_truncate BEFORE TRUNCATE ON "case_versions"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only();

-- The case version that scored an entry; null for entries written from now on that no case version scored (score
-- records computed elsewhere, source external). Added with a default and the default dropped, so every entry that
-- existed before reads 1 (PostgreSQL stores the default once, no partition is rewritten) and new entries say their own.
ALTER TABLE "ledger" ADD COLUMN "case_version" INTEGER DEFAULT 1;
ALTER TABLE "ledger" ALTER COLUMN "case_version" DROP DEFAULT;
