import type { Db } from "@/lib/db/client.ts";

// What every write of a run's rollouts or ledger changes: its highest rollout id and its highest ledger entry id.
// Every writer of a run's ledger (an ingest batch, a re-score, a case revision's re-score) holds the run's ledger
// lock and draws its ids from the sequences after taking it (lib/ledger/store/write-batch.ts), so each batch's ids
// are above every id of the run committed before it: a batch that stores a rollout raises the first, one that
// appends an entry the second, and an entry loses `is_current` only in the transaction that appends the entry
// superseding it. A rollout's searchable texts are written once, with it. The kept results of a run's searches
// (lib/search/match-set-data.ts, lib/ledger/search-view-data.ts) are kept while these are unchanged.

/** A run's highest rollout id and highest ledger entry id, as text. */
export type RunFingerprint = { rollouts: string; entries: string };

/**
 * The run's fingerprint, read in one statement (two key probes); null for a run without rollouts (nothing of it to
 * keep). Read before what is kept with it, in the same transaction, so that holds at least what it says.
 */
export async function runFingerprint(run: string, client: Db): Promise<RunFingerprint | null> {
  const [row] = await client.$queryRaw<{ rollouts: string | null; entries: string | null }[]>`
    select (select max(r.id) from rollouts r where r.run_id = ${run})::text as rollouts,
           (select max(l.id) from ledger l where l.run_id = ${run})::text as entries`;
  return row?.rollouts == null ? null : { rollouts: row.rollouts, entries: row.entries ?? "" };
}

/** A run's fingerprint read at most once, when first asked for (one page's reads share it). */
export function fingerprintOnce(run: string, client: Db): () => Promise<RunFingerprint | null> {
  let read: Promise<RunFingerprint | null> | undefined;
  return () => (read ??= runFingerprint(run, client));
}
