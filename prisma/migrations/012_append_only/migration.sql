-- Verity 012: what the product never changes, the database refuses to change; and every review says whether it
-- counts toward agreement.

-- 1. Append-only, enforced by the database. 001 made the ledger, reviews, adjudications and the activity log
-- refuse UPDATE and DELETE; rollouts and cases join them. Nothing in the product changes or removes either after
-- ingest: ingest refuses a rollout or case whose content differs from the stored one ("never overwritten"), a
-- re-score adds ledger entries and reads the rollout, the demo and the tests only insert, and there is no archive
-- path. TRUNCATE fires no row trigger, so every append-only table also refuses it by a statement trigger.
CREATE OR REPLACE FUNCTION verity_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    RAISE EXCEPTION '% is append-only: it cannot be truncated', TG_TABLE_NAME;
  END IF;
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION '% is append-only: rows cannot be deleted', TG_TABLE_NAME;
  END IF;
  -- The one permitted change: a superseded ledger entry's is_current goes from true to false, nothing else. That a
  -- successor exists is checked at commit by ledger_superseded_has_successor below.
  IF TG_TABLE_NAME = 'ledger' THEN
    IF OLD.is_current AND NOT NEW.is_current
       AND (to_jsonb(NEW) - 'is_current') = (to_jsonb(OLD) - 'is_current') THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION '% is append-only: rows cannot be changed', TG_TABLE_NAME;
END $$;

CREATE TRIGGER rollouts_append_only BEFORE UPDATE OR DELETE ON "rollouts"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only();
CREATE TRIGGER cases_append_only BEFORE UPDATE OR DELETE ON "cases"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only();

CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON "ledger"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only();
CREATE TRIGGER reviews_no_truncate BEFORE TRUNCATE ON "reviews"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only();
CREATE TRIGGER adjudications_no_truncate BEFORE TRUNCATE ON "adjudications"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only();
CREATE TRIGGER activity_log_no_truncate BEFORE TRUNCATE ON "activity_log"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only();
CREATE TRIGGER rollouts_no_truncate BEFORE TRUNCATE ON "rollouts"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only();
CREATE TRIGGER cases_no_truncate BEFORE TRUNCATE ON "cases"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only();

-- 2. A ledger entry stops being current only when an entry superseding it exists for the same trajectory. A
-- re-score clears the old entries' is_current and then inserts their successors (supersedes_id = the old id) in
-- the same transaction, so the check waits for the commit (DEFERRABLE INITIALLY DEFERRED) and then looks the
-- successor up by the unique index on supersedes_id. If that successor is itself superseded in the same
-- transaction, its own check requires the next one: the chain ends in a current entry.
CREATE FUNCTION verity_ledger_has_successor() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "ledger" s WHERE s.supersedes_id = NEW.id AND s.trajectory_id = NEW.trajectory_id) THEN
    RAISE EXCEPTION 'ledger entry % (trajectory %) is no longer current but no entry supersedes it: is_current is cleared only by the transaction that inserts its successor', NEW.id, NEW.trajectory_id
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER ledger_superseded_has_successor AFTER UPDATE OF is_current ON "ledger"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.is_current AND NOT NEW.is_current)
  EXECUTE FUNCTION verity_ledger_has_successor();

-- 3. Blind reviews. A review counts toward agreement only if its author could not have seen the rollout's ledger
-- numbers before submitting (docs/audit.md). The server decides at submission and stores the reason a review does
-- not count (NULL: it counts); reviews stay append-only, so the reason is part of the row from its insert.
ALTER TABLE "reviews" ADD COLUMN "excluded_reason" TEXT;

-- Reviews submitted before this migration get the reason the submission would have given them (lib/review/blind.ts),
-- judged on the record of roles in the activity log (user.create's role, user.role_change's from and to) up to the
-- moment each was submitted: the author's role then (the last change before it, else the first change after it,
-- else the present role), then any earlier role, then an earlier review of the same rollout by the same author. The roles that can read the ledger (lib/auth/policy.ts, "ledger.read") are
-- admin, lead and researcher. The append-only trigger is set aside for this one statement, inside the migration's
-- own transaction.
ALTER TABLE "reviews" DISABLE TRIGGER "reviews_append_only";
WITH history AS (
  SELECT a.id, a.at, a.target_id AS user_id, a.action, a.details FROM "activity_log" a
   WHERE a.action IN ('user.create', 'user.role_change') AND a.target_type = 'user'
), judged AS (
  SELECT r.id,
         COALESCE(
           (SELECT CASE WHEN h.action = 'user.create' THEN h.details->>'role' ELSE h.details->>'to' END
              FROM history h WHERE h.user_id = r.reviewer_id::text AND h.at <= r.created_at
             ORDER BY h.id DESC LIMIT 1),
           (SELECT h.details->>'from' FROM history h
             WHERE h.user_id = r.reviewer_id::text AND h.at > r.created_at AND h.action = 'user.role_change'
             ORDER BY h.id LIMIT 1),
           u.role::text) AS role_then,
         (SELECT x.role FROM history h,
                 LATERAL (VALUES (h.details->>'role'), (h.details->>'from'), (h.details->>'to')) AS x(role)
           WHERE h.user_id = r.reviewer_id::text AND h.at <= r.created_at
             AND x.role IN ('admin', 'lead', 'researcher')
           ORDER BY h.id DESC LIMIT 1) AS held,
         (SELECT e.item_id FROM "reviews" e JOIN "audit_items" ei ON ei.id = e.item_id
           WHERE e.reviewer_id = r.reviewer_id AND ei.trajectory_id = i.trajectory_id AND e.item_id <> r.item_id
             AND e.id < r.id
           ORDER BY e.id LIMIT 1) AS seen_in
    FROM "reviews" r JOIN "users" u ON u.id = r.reviewer_id JOIN "audit_items" i ON i.id = r.item_id
)
UPDATE "reviews" r
   SET "excluded_reason" = CASE
         WHEN j.role_then IN ('admin', 'lead', 'researcher') THEN 'author''s role (' || j.role_then || ') can read the ledger'
         WHEN j.held IS NOT NULL THEN 'author held the role ' || j.held || ', which can read the ledger, before submitting'
         ELSE 'author saw this rollout''s ledger numbers after reviewing it in audit item ' || j.seen_in
       END
  FROM judged j
 WHERE r.id = j.id AND (j.role_then IN ('admin', 'lead', 'researcher') OR j.held IS NOT NULL OR j.seen_in IS NOT NULL);
ALTER TABLE "reviews" ENABLE TRIGGER "reviews_append_only";
