-- Verity 027: each run counts its reviews and pair reviews as they are written, so that the caches of the run page,
-- the Monitors page and the gate (lib/monitors/data.ts runFingerprints, reviewFingerprint) tell whether a run's
-- reviews changed by reading its row, not by joining its audit items with their reviews. That join is O(the run's
-- reviews) and ran several times per view: with 1% of a run of 10 M entries reviewed (110,117 reviews) it was
-- 126–200 ms each, and the run page missed its 300 ms.
--
-- Reviews and pair reviews are append-only (012, 017: a correction is a new row), so a count and the latest id are
-- a fingerprint of the set, as the join's count(*) and max(id) were. The row trigger adds one per insert; reviews
-- come one at a time from annotators, and concurrent inserts for one run queue on its row for the length of their
-- transaction only. An audit item's run is its batch's (createBatch samples the batch's run).
ALTER TABLE "runs" ADD COLUMN "review_count" INTEGER NOT NULL DEFAULT 0,
                   ADD COLUMN "last_review_id" BIGINT,
                   ADD COLUMN "pair_review_count" INTEGER NOT NULL DEFAULT 0,
                   ADD COLUMN "last_pair_review_id" BIGINT;

UPDATE "runs" r SET "review_count" = x.n, "last_review_id" = x.last
  FROM (SELECT i.run_id, count(*)::int AS n, max(v.id) AS last
          FROM "audit_items" i JOIN "reviews" v ON v.item_id = i.id GROUP BY i.run_id) x
 WHERE x.run_id = r.id;
UPDATE "runs" r SET "pair_review_count" = x.n, "last_pair_review_id" = x.last
  FROM (SELECT i.run_id, count(*)::int AS n, max(v.id) AS last
          FROM "audit_items" i JOIN "pair_reviews" v ON v.item_id = i.id GROUP BY i.run_id) x
 WHERE x.run_id = r.id;

CREATE FUNCTION verity_count_review() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'reviews' THEN
    UPDATE "runs" SET "review_count" = "review_count" + 1,
                      "last_review_id" = greatest(coalesce("last_review_id", 0), NEW.id)
     WHERE id = (SELECT run_id FROM "audit_items" WHERE id = NEW.item_id);
  ELSE
    UPDATE "runs" SET "pair_review_count" = "pair_review_count" + 1,
                      "last_pair_review_id" = greatest(coalesce("last_pair_review_id", 0), NEW.id)
     WHERE id = (SELECT run_id FROM "audit_items" WHERE id = NEW.item_id);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER reviews_count AFTER INSERT ON "reviews" FOR EACH ROW EXECUTE FUNCTION verity_count_review();
CREATE TRIGGER pair_reviews_count AFTER INSERT ON "pair_reviews" FOR EACH ROW EXECUTE FUNCTION verity_count_review();
