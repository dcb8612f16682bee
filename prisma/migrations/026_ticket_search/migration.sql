-- Verity 026: the browser's ticket search reads a page, not the ticket's every entry.
--
-- ledger (ticket_id) became ledger (ticket_id, id). A search for a ticket in one run's view read all of the ticket's
-- entries in that run to sort them for the page (O(the ticket's entries): 155 ms p50 at 3 M entries, where a ticket
-- has 12,000 of them, and growing with the run). With id in the key, the browser's default order (newest first) is
-- the index's own order within the ticket: the first page walks the index backward and stops after a page
-- (lib/ledger/browse.ts, browseConditions: the search names the ticket alone when no trajectory has the term as its
-- id). "Find this ticket" across runs probes the same index on each run's partition, as before.
DROP INDEX "ledger_ticket_id_idx";

CREATE INDEX "ledger_ticket_id_id_idx" ON "ledger"("ticket_id", "id");
