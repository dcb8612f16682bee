-- Verity 039: saved searches (docs/search.md, "Turn a search into work"). A search a user named and kept: its query
-- text (the search box's syntax, checked when saved), an optional run it is scoped to, and an optional alarm line (a
-- share of a step's rollouts) drawn on its per-step chart. Each row is its owner's: nobody else lists or changes it.
-- Small and shared by every run (a global search has no run), so on Citus it is a reference table beside users and
-- runs (lib/db/distribute.ts). A search scoped to a run goes with its run; one whose owner is deleted goes with them.

CREATE TABLE "saved_searches" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "run_id" TEXT,
    "alarm_share" DOUBLE PRECISION,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "saved_searches_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "saved_searches_user_id_name_key" ON "saved_searches"("user_id", "name");
ALTER TABLE "saved_searches" ADD CONSTRAINT "saved_searches_user_id_fkey" FOREIGN KEY ("user_id")
  REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "saved_searches" ADD CONSTRAINT "saved_searches_run_id_fkey" FOREIGN KEY ("run_id")
  REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
