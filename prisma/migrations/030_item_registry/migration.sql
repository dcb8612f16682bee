-- Verity 030: an audit item keeps its rollout's tool registry, so that the claim slots of a set of items
-- (lib/agreement/case-slots.ts, what the agreement report and the monitors' audit series compare extraction on) are
-- read from the items alone. Before, each item's registry was a probe of its run's rollouts: 10,057 reviewed items in
-- a run of 1 M rollouts, 54 of the slots read's 83 ms, beside the agreement report's two other statements on two cores.
--
-- Rollouts are append-only (012), so the copy cannot go stale. The row trigger sets it from the rollout on every
-- insert (and on a change of the item's rollout, which nothing does), whatever the writer passed: createBatch, the
-- pairwise sampler, the benches' and tests' SQL. Nullable for Prisma's sake (a value the database sets is not one a
-- caller must give); the read falls back to the rollout for a row without one.
ALTER TABLE "audit_items" ADD COLUMN "registry_id" INTEGER;

UPDATE "audit_items" i SET "registry_id" = ro."registry_id"
  FROM "rollouts" ro
 WHERE ro."run_id" = i."run_id" AND ro."id" = i."rollout_id";

CREATE FUNCTION verity_item_registry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."registry_id" := (SELECT ro."registry_id" FROM "rollouts" ro
                         WHERE ro."run_id" = NEW."run_id" AND ro."id" = NEW."rollout_id");
  RETURN NEW;
END $$;
CREATE TRIGGER audit_items_registry BEFORE INSERT OR UPDATE OF "run_id", "rollout_id", "registry_id" ON "audit_items"
  FOR EACH ROW EXECUTE FUNCTION verity_item_registry();
