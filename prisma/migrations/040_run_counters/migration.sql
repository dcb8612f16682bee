-- Verity 040: the run's counters (027: its reviews and pair reviews; 028: its ledger entries that supersede another)
-- move from `runs` to a table of their own, one row per run that has counted anything, so that they live where the
-- rows they count are written. On one node nothing changes but the table the triggers write and the caches read. On
-- Citus (docs/scale.md) `runs` is a reference table, a copy on every node, and a trigger's write reaches only the copy
-- of the node it runs on: the workers' copies never counted a review, and the ledger's trigger could not run at all.
-- `run_counters` is distributed by run_id with the ledger there, so a counter row sits on the worker of its run's
-- entries, and lib/db/distribute.ts counts superseding entries with a row trigger on the ledger's shards.
--
-- Each trigger upserts the run's row. The review triggers are told apart by their argument, not by the table's name:
-- a trigger of a table Citus manages runs on its shard, whose name (reviews_102017) is TG_TABLE_NAME.
CREATE TABLE "run_counters" (
    "run_id" TEXT NOT NULL,
    "review_count" INTEGER NOT NULL DEFAULT 0,
    "last_review_id" BIGINT,
    "pair_review_count" INTEGER NOT NULL DEFAULT 0,
    "last_pair_review_id" BIGINT,
    "superseding_count" BIGINT NOT NULL DEFAULT 0,
    "last_superseding_id" BIGINT,
    CONSTRAINT "run_counters_pkey" PRIMARY KEY ("run_id"),
    CONSTRAINT "run_counters_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

INSERT INTO "run_counters" ("run_id", "review_count", "last_review_id", "pair_review_count", "last_pair_review_id",
                            "superseding_count", "last_superseding_id")
SELECT "id", "review_count", "last_review_id", "pair_review_count", "last_pair_review_id", "superseding_count",
       "last_superseding_id"
  FROM "runs"
 WHERE "review_count" > 0 OR "pair_review_count" > 0 OR "superseding_count" > 0;

-- The run is read first: Citus refuses a subquery inside an INSERT.
CREATE OR REPLACE FUNCTION verity_count_review() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  run text;
BEGIN
  SELECT run_id INTO run FROM "audit_items" WHERE id = NEW.item_id;
  IF coalesce(TG_ARGV[0], TG_TABLE_NAME) = 'reviews' THEN
    INSERT INTO "run_counters" AS k ("run_id", "review_count", "last_review_id") VALUES (run, 1, NEW.id)
    ON CONFLICT ("run_id") DO UPDATE SET "review_count" = k."review_count" + 1,
                                         "last_review_id" = greatest(coalesce(k."last_review_id", 0), NEW.id);
  ELSE
    INSERT INTO "run_counters" AS k ("run_id", "pair_review_count", "last_pair_review_id") VALUES (run, 1, NEW.id)
    ON CONFLICT ("run_id") DO UPDATE SET "pair_review_count" = k."pair_review_count" + 1,
                                         "last_pair_review_id" = greatest(coalesce(k."last_pair_review_id", 0), NEW.id);
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER reviews_count ON "reviews";
CREATE TRIGGER reviews_count AFTER INSERT ON "reviews" FOR EACH ROW EXECUTE FUNCTION verity_count_review('reviews');
DROP TRIGGER pair_reviews_count ON "pair_reviews";
CREATE TRIGGER pair_reviews_count AFTER INSERT ON "pair_reviews"
  FOR EACH ROW EXECUTE FUNCTION verity_count_review('pair_reviews');

-- Once per inserting statement, as 028: most statements supersede nothing and write no counter.
CREATE OR REPLACE FUNCTION verity_count_superseding() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "run_counters" AS k ("run_id", "superseding_count", "last_superseding_id")
  SELECT n.run_id, count(*), max(n.id) FROM new_rows n WHERE n.supersedes_id IS NOT NULL GROUP BY n.run_id
  ON CONFLICT ("run_id") DO UPDATE SET "superseding_count" = k."superseding_count" + excluded."superseding_count",
                                       "last_superseding_id" = greatest(coalesce(k."last_superseding_id", 0),
                                                                        excluded."last_superseding_id");
  RETURN NULL;
END $$;

ALTER TABLE "runs" DROP COLUMN "review_count",
                   DROP COLUMN "last_review_id",
                   DROP COLUMN "pair_review_count",
                   DROP COLUMN "last_pair_review_id",
                   DROP COLUMN "superseding_count",
                   DROP COLUMN "last_superseding_id";
