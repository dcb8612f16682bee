import type pg from "pg";
import type { Db } from "@/lib/db/client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import {
  asksBlocks,
  QUERY_CANCELED,
  SEARCH_TIMEOUT_MS,
  searchTextsSql,
  type IndexedSearch,
  type SearchTextRow,
} from "@/lib/search/sql.ts";
import type { SearchQuery } from "@/lib/search/parse.ts";
import { searchSnippets, type Snippet } from "@/lib/search/snippet.ts";

// Reads that run a search: under a statement timeout, and the snippets of a page's rollouts.

/** A `q` that is neither an id in the view's scope nor a search that parses: the parser's message, for a 400. */
export class SearchInputError extends Error {
  constructor(readonly reason: string) {
    super(`q: ${reason}`);
  }
}

/** A search stopped by its statement timeout: a 422 for the routes, a message at the search box for the page. */
export class SearchTimeoutError extends Error {
  constructor(readonly ms = SEARCH_TIMEOUT_MS) {
    super(
      `the search took longer than ${ms / 1000} s and was stopped; narrow it with a rarer word, a "phrase", a run or a step range`,
    );
  }
}

/**
 * A read's answer, or null when the search's timeout stopped it (SearchTimeoutError): for a figure a page can be shown
 * without — the browser's count, whose page was found — where the stopped count refused the whole page. Any other
 * error is the read's.
 */
export async function unlessTimedOut<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof SearchTimeoutError) return null;
    throw err;
  }
}

/** Whether an error (a driver's, or Prisma's wrapping one) is a statement stopped by statement_timeout. */
export function isStatementTimeout(err: unknown): boolean {
  for (let e = err as Record<string, unknown> | undefined, depth = 0; e && depth < 5; depth++) {
    const meta = e.meta as Record<string, unknown> | undefined;
    if ([e.code, e.originalCode, meta?.code].includes(QUERY_CANCELED)) return true;
    if (/canceling statement due to statement timeout/.test(String(e.message ?? meta?.message ?? ""))) return true;
    e = e.cause as Record<string, unknown> | undefined;
  }
  return false;
}

/**
 * Milliseconds a read shared by every request that asks for it may run: a search's match set in a run, and a view's
 * order read from it (lib/search/match-set-data.ts, lib/ledger/browse.ts). It runs in a transaction of its own, so the
 * request that started it giving up does not stop it: under 20 researchers at 10 M rollouts, the gathering of
 * `退款 -refund` (0.3–1.1 s of the server's CPU alone) ran past the 5 s timeout of the request that started it, and of
 * the next, and the next, each starting it again (docs/benchmarks.md, "Search").
 */
export const SHARED_READ_TIMEOUT_MS = 30_000;

/**
 * Thrown inside withSearchTimeout's body when a shared read it needs (sharedRead) is still running: the body's
 * transaction is ended, so a request waiting for the read holds no connection of the pool that the read needs, and the
 * body is run again once the read has ended.
 */
export class SharedReadPending extends Error {
  constructor(readonly ready: Promise<unknown>) {
    super("a shared read is under way (withSearchTimeout waits for it)");
  }
}

/**
 * The value of a shared read (a promise that many requests wait for) if it has already ended; otherwise
 * SharedReadPending, for withSearchTimeout to wait for it outside the transaction. A promise that has ended settles
 * within the microtasks this await lets run, before the next turn of the event loop.
 */
export async function sharedRead<T>(read: Promise<T>): Promise<T> {
  const ended = await Promise.race([
    read.then(
      () => true,
      () => true,
    ),
    new Promise<false>((res) => setImmediate(() => res(false))),
  ]);
  if (ended) return read;
  throw new SharedReadPending(read);
}

/** How many times withSearchTimeout runs its body again after waiting for the shared reads it needs. */
const SHARED_READ_ROUNDS = 4;

/**
 * Runs `body` in a read transaction whose statements may run at most `ms` (SET LOCAL: the setting ends with the
 * transaction). A read takes no lock that an insert waits for, so a search never holds ingest up; the timeout stops
 * one the indexes cannot narrow. A statement stopped by it is thrown as SearchTimeoutError. A body that needs a shared
 * read still running (SharedReadPending) is run again once that read has ended, its transaction ended while it waits;
 * the shared read's failure is its own (stopped by its timeout: SearchTimeoutError of that timeout); one that still
 * finds a shared read running after SHARED_READ_ROUNDS waits is a SearchTimeoutError too. `workMemMb`, when given,
 * sets the transaction's work_mem.
 */
export async function withSearchTimeout<T>(
  client: PrismaClient,
  body: (tx: Db) => Promise<T>,
  ms = SEARCH_TIMEOUT_MS,
  workMemMb?: number,
): Promise<T> {
  for (let round = 0; ; round++) {
    try {
      return await client.$transaction(
        async (tx) => {
          await tx.$executeRawUnsafe(`set local statement_timeout = ${Math.max(1, Math.floor(ms))}`);
          if (workMemMb) await tx.$executeRawUnsafe(`set local work_mem = '${Math.floor(workMemMb)}MB'`);
          return body(tx);
        },
        { timeout: ms + 10_000, maxWait: 10_000 },
      );
    } catch (err) {
      if (err instanceof SharedReadPending) {
        // still waiting after its rounds (the reads it needs dropped and started again while it waited, as a busy
        // console's kept sets are): told as a search that took too long, not a failure of the console
        if (round >= SHARED_READ_ROUNDS) throw new SearchTimeoutError(ms);
        // its failure is this body's: a shared read stopped by its timeout is a SearchTimeoutError of its own
        await err.ready;
        continue;
      }
      if (isStatementTimeout(err)) throw new SearchTimeoutError(ms);
      throw err;
    }
  }
}

/**
 * Memory (MB) a shared read's sorts and bitmaps may use (`work_mem`, 4 MB by default). A search's match set is read
 * by a bitmap of its index's candidates: `退款 -refund` at 10 M rollouts has 647,500, whose bitmap did not fit in 4 MB
 * and went lossy, so every row of most of its pages was checked again (1.2 M rows): 2.96 s of one process, 1.80 s
 * with the bitmap exact (docs/benchmarks.md, "Search"). A view's order from a set sorts its entries (244,000 for a
 * phrase). A few shared reads run at once, each once per set or order kept.
 */
export const SHARED_READ_WORK_MEM_MB = 64;

/**
 * Runs `body` as a shared read: in a read transaction of its own on `client` under `ms` (SHARED_READ_TIMEOUT_MS),
 * whoever asked for it first (a statement stopped by it is thrown as SearchTimeoutError of `ms`), with
 * SHARED_READ_WORK_MEM_MB of memory for its sorts and bitmaps.
 */
export function sharedTransaction<T>(
  client: PrismaClient,
  body: (tx: Db) => Promise<T>,
  ms = SHARED_READ_TIMEOUT_MS,
): Promise<T> {
  return withSearchTimeout(client, body, ms, SHARED_READ_WORK_MEM_MB);
}

/**
 * A search with the words its runs' blocks may leave out (IndexedSearch; search_omitted_words, migration 046): those
 * of the given runs, or of every run for a view across runs. Read for each search, never cached: a run's list grows
 * with its ingest, and a search must not ask the blocks written since for a word they left out. A search none of
 * whose terms the blocks are asked for (exclusions and Chinese terms only) reads no list.
 */
export async function loadIndexedSearch(
  client: Db | pg.ClientBase,
  query: SearchQuery,
  runs: readonly string[] | null,
): Promise<IndexedSearch> {
  if (!query.terms.some(asksBlocks)) return { ...query, omitted: new Set() };
  const [text, values] = runs
    ? ["select word from search_omitted_words where run_id = any($1::text[])", [runs]]
    : ["select distinct word from search_omitted_words", []];
  const rows =
    "$queryRawUnsafe" in client
      ? await client.$queryRawUnsafe<{ word: string }[]>(text, ...values)
      : (await client.query<{ word: string }>(text, values)).rows;
  return { ...query, omitted: new Set(rows.map((r) => r.word)) };
}

const keyOf = (runId: string, rolloutId: string | bigint) => `${runId}\u0000${rolloutId}`;

/** The searchable texts of some rollouts, by run and rollout id (keyOf). */
export async function readSearchTexts(
  client: Db,
  rollouts: { runId: string; rolloutId: string | bigint }[],
): Promise<Map<string, SearchTextRow>> {
  if (!rollouts.length) return new Map();
  const rows = await client.$queryRaw<SearchTextRow[]>(searchTextsSql(rollouts));
  return new Map(rows.map((r) => [keyOf(r.run_id, r.rollout_id), r]));
}

/**
 * Each row's snippets of the search's matches (empty for a row without a stored rollout), in the rows' order: one
 * read of rollout_search's key for the page.
 */
export async function pageSnippets<R extends { runId: string; rolloutId: string | null }>(
  client: Db,
  query: SearchQuery,
  rows: R[],
): Promise<Snippet[][]> {
  const stored = rows.filter((r) => r.rolloutId !== null) as (R & { rolloutId: string })[];
  const texts = await readSearchTexts(client, stored);
  return rows.map((r) => {
    const t = r.rolloutId === null ? undefined : texts.get(keyOf(r.runId, r.rolloutId));
    return t ? searchSnippets(query, t) : [];
  });
}
