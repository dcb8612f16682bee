-- Verity 028: each run counts the ledger entries that supersede another (a re-score, a later score record for a
-- stored rollout), as they are inserted, so that the agreement report's cache (lib/agreement/cached.ts
-- agreementFingerprint) tells whether any reviewed item's current entry changed by reading the run's row. It used to
-- probe the run's trajectory index once per reviewed item: 143 ms at 10,067 items in a run of 10 M entries and
-- 1.86 s at 110,117 — O(items), on every read of the agreement page, changed or not.
--
-- An item's current entry changes only when an entry superseding it is inserted: is_current is cleared only by the
-- transaction that inserts its successor (014, ledger_superseded_has_successor), and a new entry for a trajectory
-- that has a current one is written as its successor (ingest, re-score and bulk fix all do, under the ledger's write
-- lock). The ledger is append-only, so a count and the latest id are a fingerprint of the run's superseding entries.
-- Once per inserting statement (a batch's COPY is one): most statements supersede nothing and update no row; those
-- that do update their run's row once, which a review of the same run (027) then waits on until they commit.
ALTER TABLE "runs" ADD COLUMN "superseding_count" BIGINT NOT NULL DEFAULT 0,
                   ADD COLUMN "last_superseding_id" BIGINT;

UPDATE "runs" r SET "superseding_count" = x.n, "last_superseding_id" = x.last
  FROM (SELECT run_id, count(*) AS n, max(id) AS last FROM "ledger" WHERE "supersedes_id" IS NOT NULL GROUP BY run_id) x
 WHERE x.run_id = r.id;

CREATE FUNCTION verity_count_superseding() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "runs" r SET "superseding_count" = r."superseding_count" + x.n,
                      "last_superseding_id" = greatest(coalesce(r."last_superseding_id", 0), x.last)
    FROM (SELECT n.run_id, count(*) AS n, max(n.id) AS last FROM new_rows n
           WHERE n.supersedes_id IS NOT NULL GROUP BY n.run_id) x
   WHERE r.id = x.run_id;
  RETURN NULL;
END $$;

CREATE TRIGGER ledger_count_superseding AFTER INSERT ON "ledger"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION verity_count_superseding();
