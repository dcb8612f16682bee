-- Verity 031: a stored gate verdict keeps the summary of the inputs it was concluded from (the run's rollups, its
-- reviews and pair reviews, its thresholds: lib/monitors/data.ts runFingerprints), so a read of the verdict can tell
-- that reviews or an ingest arrived after it (the verdict is stale) and evaluate the gate again. Null for a verdict
-- stored before this column: its inputs are unknown, so it reads as stale.
ALTER TABLE "gate_verdicts" ADD COLUMN "inputs" TEXT;
