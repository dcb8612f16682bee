// A search's matches in one run, found once and reused while the run's rollouts are unchanged. A search whose page
// neither its index's few matches nor a walk in the browser's order answers (lib/ledger/browse.ts: a Chinese term
// with an exclusion sorted by reward, or under a filter that keeps few of its matches) checks every candidate the
// index gives, for its page, again for its count, and again for each next page: `退款 -refund` reads the 64,750
// rollouts with 退款's pair to keep 15,375 (0.5 s of the server's CPU per page at 1 M rollouts, docs/benchmarks.md,
// "Search"). Kept here, each view of that search in that run is a lookup of the matches' ledger entries by rollout id.
//
// A set is kept while the run's highest rollout id (lib/db/run-fingerprint.ts) is the one it was gathered at: every
// batch that adds a rollout to the run raises it, and a rollout's searchable texts are written once, with it.
import type { Db } from "@/lib/db/client.ts";
import { fingerprintOnce, type RunFingerprint } from "@/lib/db/run-fingerprint.ts";
import { processCache } from "@/lib/db/fingerprint-cache.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { sharedRead, sharedTransaction } from "@/lib/search/data.ts";
import type { SearchQuery } from "@/lib/search/parse.ts";
import {
  pairMatchIdsSql,
  rangeMatchIdsSql,
  runBlocksSql,
  scanMatchIdsSql,
  searchBlocksSql,
  type IndexedSearch,
} from "@/lib/search/sql.ts";

/**
 * Matches a run's match set holds at most: a search with more is answered as before (the walk, or the index). At
 * 10 M rollouts `退款 -refund` has about 153,000 and the phrase "已为您安排退款" about 244,000: with 50,000 their views that
 * the walk does not answer went to the index, which the statement timeout stopped under the 20 researchers (29–40
 * errors a minute, docs/benchmarks.md "Search"). A set of 250,000 is about 2 MB as its literal and 2 MB as its steps
 * and their places in it.
 */
export const MATCH_SET_MAX = 250_000;

/**
 * Blocks of a run up to which a search's matches are gathered by the blocks' index (each block's rollouts, 16 at
 * most, read by key and checked): 262,144 rollouts at most. More blocks hold a word too frequent for a match set,
 * whose views the walk answers. With 4,096, a rare phrase with an order's id at 10 M rollouts
 * (`"have refunded" O-20000`, one ticket's refund replies: about 26,000 rollouts in 10,000 blocks) had no set, and
 * its page went to the index plan, which the statement timeout stopped; gathered, its first page takes 1.2–1.35 s
 * at p95 (docs/benchmarks.md, "Search").
 */
const GATHER_BLOCKS = 16_384;

/**
 * Blocks of a run up to which a search with nothing to ask of an index is gathered by reading each of the run's rows
 * (65,536 rollouts at most).
 */
const SCAN_RUN_BLOCKS = 4_096;

/**
 * Every rollout of one run that matches a search: their ids as a PostgreSQL array literal (given to a statement as
 * one bigint[] parameter, as it is kept), in the order of their steps, with each one's step (`steps`, ascending) and
 * where its id starts in the literal (`starts`): a view of a step range is then one slice of the literal (setInSteps).
 * `over` when there are more than MATCH_SET_MAX, when the blocks' index finds more than GATHER_BLOCKS blocks, or when
 * the search has no index to gather them by in a run of more than SCAN_RUN_BLOCKS blocks.
 */
export type MatchSet = GatheredSet | { over: true };
type GatheredSet = { ids: string; steps: Int32Array; starts: Int32Array };

/** A match set of the given rollouts (in any order). */
export function matchSetFrom(rows: { rollout_id: bigint; step: number }[]): GatheredSet {
  const sorted = [...rows].sort((a, b) => a.step - b.step);
  const starts = new Int32Array(sorted.length);
  let at = 1;
  const parts = sorted.map((r, i) => {
    const id = String(r.rollout_id);
    starts[i] = at;
    at += id.length + 1;
    return id;
  });
  return { ids: `{${parts.join(",")}}`, steps: Int32Array.from(sorted, (r) => r.step), starts };
}

/** The first index of `steps` (ascending) whose step is more than `step` (`past`) or at least `step`. */
function stepIndex(steps: Int32Array, step: number, past: boolean): number {
  let lo = 0;
  let hi = steps.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (past ? steps[mid] <= step : steps[mid] < step) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A match set's rollouts in a view's step range (either end optional) as a PostgreSQL array literal: the set's own
 * literal without a range, else the slice of it that holds the range's steps (found by halving: no id is read). A
 * view of a tenth of a run's steps then reads a tenth of the set's entries, where it read them all and kept a tenth
 * (1.1 s a first view at 10 M rollouts under the 20 researchers, docs/benchmarks.md); the ids split and filtered for
 * each request cost the console 17–20 ms for a set of 244,000. A rollout's step in its search row is its own, as its
 * ledger entries' is.
 */
export function setInSteps(set: GatheredSet, from?: number, to?: number) {
  if (from === undefined && to === undefined) return set.ids;
  const first = from === undefined ? 0 : stepIndex(set.steps, from, false);
  const end = to === undefined ? set.steps.length : stepIndex(set.steps, to, true);
  if (first >= end) return "{}";
  const last = end < set.steps.length ? set.starts[end] - 1 : set.ids.length - 1;
  return `{${set.ids.slice(set.starts[first], last)}}`;
}

/**
 * The sets kept: by their size, not their number — a run of 10,000 rollouts' set is a few kB, one of 10 M's up to 3 MB —
 * so that every search of the researchers' mix in each of 20 runs stays kept (bench/search.ts; 64 sets, the bound by
 * number before, were taken over by other runs' sets before a search came back, each then gathered again).
 */
const matchSets = processCache<MatchSet>("search-match-sets", {
  maxEntries: 4096,
  maxAgeMs: 10 * 60_000,
  weigh: (set) => ("over" in set ? 16 : set.ids.length + set.steps.byteLength + set.starts.byteLength),
  maxWeight: 192 * 2 ** 20,
});

/**
 * The cache's key of a search in a run: the run, how many matches are looked for, and the search's terms (the same
 * terms written another way share).
 */
const keyOf = (query: SearchQuery, run: string, max: number | string) => JSON.stringify([run, max, query.terms]);

/** A run's fingerprint, read when first asked for (fingerprintOnce). */
type Fingerprint = () => Promise<RunFingerprint | null>;

/**
 * The run's matches of the search, gathered by the blocks that hold its words or by its CJK pairs' index; a search
 * with nothing to ask of either (its words in most blocks, as `refund` and `tool:finance.issue_refund` are) in a run
 * of SCAN_RUN_BLOCKS blocks or fewer, by reading each of the run's rows. Every view of such a search in such a run
 * was counted by reading the run's entries and checking each: 60–100 ms of the server's CPU per view of a run of
 * 20,000 rollouts, where a view of a kept set reads its matches' entries by key (docs/benchmarks.md, "Search").
 */
async function gather(search: IndexedSearch, run: string, client: Db, max: number): Promise<MatchSet> {
  const blocks = searchBlocksSql(search, run, GATHER_BLOCKS + 1);
  let ids: { rollout_id: bigint; step: number }[];
  if (blocks) {
    const ranges = await client.$queryRaw<{ first_id: bigint; last_id: bigint }[]>(blocks);
    if (ranges.length > GATHER_BLOCKS) return { over: true };
    const spans = ranges.map((r) => ({ first: r.first_id, last: r.last_id }));
    ids = spans.length ? await client.$queryRaw(rangeMatchIdsSql(search, run, spans)) : [];
  } else {
    const pairs = pairMatchIdsSql(search, run, max + 1);
    if (pairs) ids = await client.$queryRaw(pairs);
    else {
      const [{ n }] = await client.$queryRaw<{ n: number }[]>(runBlocksSql(run, SCAN_RUN_BLOCKS + 1));
      if (n > SCAN_RUN_BLOCKS) return { over: true };
      ids = await client.$queryRaw(scanMatchIdsSql(search, run, max + 1));
    }
  }
  if (ids.length > max) return { over: true };
  return matchSetFrom(ids);
}

/**
 * The search's match set in one run: the one kept, while the run's highest rollout id is the one it was gathered at,
 * or gathered now and kept. The gathering is a shared read (lib/search/data.ts): in a transaction of its own under
 * SHARED_READ_TIMEOUT_MS, shared by every caller while it runs, and not stopped when the caller that started it gives
 * up. Its caller, in withSearchTimeout's transaction, is thrown SharedReadPending while it runs, and waits for it there
 * holding no connection. Null for a run without rollouts. `fingerprint` reads the run's (by default in `client`);
 * `max` (MATCH_SET_MAX) is for tests.
 */
export async function runMatchSet(
  search: IndexedSearch,
  run: string,
  client: Db,
  opts: { fingerprint?: Fingerprint; max?: number } = {},
): Promise<MatchSet | null> {
  const { fingerprint = fingerprintOnce(run, client), max = MATCH_SET_MAX } = opts;
  const fp = await fingerprint();
  if (fp === null) return null;
  const gathering = matchSets.get(readDb(), keyOf(search, run, max), fp.rollouts, () =>
    sharedTransaction(readDb(), (tx) => gather(search, run, tx, max)),
  );
  return sharedRead(gathering);
}

/**
 * The search's match set in one run if one is kept at the run's current highest rollout id; null otherwise. A search
 * with none kept at any reads nothing, not even the fingerprint. One still being gathered is waited for as runMatchSet's
 * caller waits (SharedReadPending).
 */
export async function keptMatchSet(
  search: SearchQuery,
  run: string,
  fingerprint: Fingerprint,
): Promise<MatchSet | null> {
  if (!matchSetHeld(search, run)) return null;
  const fp = await fingerprint();
  const held = fp && matchSets.peek(readDb(), keyOf(search, run, MATCH_SET_MAX), fp.rollouts);
  return held ? sharedRead(held) : null;
}

/** A rollout that matches a search, and its trajectory's id (a search's few matches: lib/ledger/browse.ts). */
export type Match = { rollout_id: bigint; trajectory_id: string };

/**
 * A search's few matches in a run (lib/ledger/browse.ts, fewMatches), or null when its index says they are many:
 * kept as a match set is, at the run's highest rollout id. A frequent Chinese term's check (its first 257 matches by
 * the pairs' index, each row read and checked) was 15 % of the server's statement time under 20 researchers at 3 M
 * rollouts, made again by every view of the term, whose page the walk then found (docs/benchmarks.md, "Search").
 */
const fewSets = processCache<Match[] | null>("search-few-matches", { maxEntries: 1024, maxAgeMs: 10 * 60_000 });

/**
 * The search's few matches in the run as `find` finds them (`limits`: how many it looks for, part of the key), kept
 * while the run's highest rollout id is the one they were found at; found at once for a run without rollouts.
 */
export async function keptFewMatches(
  search: SearchQuery,
  run: string,
  limits: string,
  fingerprint: Fingerprint,
  find: () => Promise<Match[] | null>,
): Promise<Match[] | null> {
  const fp = await fingerprint();
  return fewSets.get(readDb(), keyOf(search, run, limits), fp?.rollouts ?? null, find);
}

/** Whether a match set of the search in the run is kept at any of the run's highest rollout ids (nothing is read). */
export function matchSetHeld(search: SearchQuery, run: string): boolean {
  return matchSets.holds(readDb(), keyOf(search, run, MATCH_SET_MAX));
}
