-- The words a run's search blocks leave out (docs/search.md, "Words the blocks leave out"). Most of what the blocks'
-- trigram index holds is the trigrams of the few words nearly every block of a run has (on the demo's runs, 72 % of
-- its entries are trigrams found in more than half of the blocks): they cost every ingest their index upkeep, and a
-- search gains nothing from them (a word in most blocks narrows nothing). Ingest now counts, in each batch of at
-- least 32 blocks of a run, the words found in more than half of them, adds them here, and writes the run's blocks
-- without any word listed here (lib/ledger/store/search-rows.ts). A search reads its runs' list first and asks the
-- blocks only for the parts of its terms that no listed word could hold (lib/search/sql.ts): a block written before
-- a word was listed still holds it, and one written after does not, so a run's list only grows (nothing deletes from
-- it but the run's archive). Run-scoped: on Citus distributed by run_id with the blocks.
CREATE TABLE "search_omitted_words" (
    "run_id" TEXT NOT NULL,
    "word" TEXT NOT NULL,
    CONSTRAINT "search_omitted_words_pkey" PRIMARY KEY ("run_id", "word"),
    CONSTRAINT "search_omitted_words_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
