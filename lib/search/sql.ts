import { Prisma } from "@/lib/generated/prisma/client.ts";
import { cjkBigrams, hasCjkPair } from "@/lib/db/search-tokens.ts";
import type { SearchField, SearchQuery, SearchTerm } from "@/lib/search/parse.ts";

// A search as SQL over rollout_search (migration 038, docs/search.md): one row per rollout in its run's partition,
// the texts by field, a trigram index over all of them joined (DOC_SQL) and a GIN index over their CJK character
// pairs (cjk). A word is looked up by trigram (ILIKE on the joined text, case-insensitive), then checked in its
// field; a term with Chinese/Japanese/Korean text by its character pairs, then checked as written.

/** The column of a field in rollout_search. */
const FIELD_COLUMN: Record<SearchField, string> = {
  reply: "reply",
  tool: "tools",
  arg: "args",
  result: "results",
  ticket: "ticket",
};

/**
 * All of a rollout's texts joined, exactly as the trigram index rollout_search_doc_trgm_idx is built on (038): a
 * condition on this expression, written the same, is one the index answers.
 */
export function docSql(s: string): Prisma.Sql {
  const a = Prisma.raw(s);
  return Prisma.sql`(${a}.reply || ' ' || ${a}.tools || ' ' || ${a}.args || ' ' || ${a}.results || ' ' || ${a}.ticket)`;
}

/** A LIKE pattern that matches `text` literally anywhere: %, _ and \ are escaped (backslash is LIKE's escape). */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * ILIKE for a term with letters that have a case, LIKE for one without (Chinese, digits): the same rows, and ILIKE
 * folds the case of every candidate's whole text first, which on multibyte text cost 1.2 s of a 1.3 s first page at
 * 200,000 rollouts (docs/benchmarks.md, "Search"). Both are answered by the trigram index.
 */
function matchOp(text: string): Prisma.Sql {
  return Prisma.raw(text.toLowerCase() === text.toUpperCase() ? "like" : "ilike");
}

function termSql(t: SearchTerm, s: string): Prisma.Sql {
  const pattern = likePattern(t.text);
  const op = matchOp(t.text);
  const column = t.field ? Prisma.raw(`${s}.${FIELD_COLUMN[t.field]}`) : null;
  if (t.exclude) return Prisma.sql`not (${column ?? docSql(s)} ${op} ${pattern})`;
  if (hasCjkPair(t.text)) {
    // The pairs find the candidates; the text is then checked as written. `|| ''` keeps the check off the trigram
    // index: a two-character term gives it no trigram, and it would read the whole index for every candidate.
    const target = column ?? Prisma.sql`(${docSql(s)} || '')`;
    return Prisma.sql`${Prisma.raw(s)}.cjk @> ${cjkBigrams(t.text)}::text[] and ${target} ${op} ${pattern}`;
  }
  const found = Prisma.sql`${docSql(s)} ${op} ${pattern}`;
  return column ? Prisma.sql`${found} and ${column} ${op} ${pattern}` : found;
}

/**
 * The search's conditions on a rollout_search row aliased `s` (for reads of rollout_search itself: counts per step,
 * the matching rollouts of a run).
 */
export function matchCondition(query: SearchQuery, s = "s"): Prisma.Sql {
  return Prisma.join(
    query.terms.map((t) => termSql(t, s)),
    " and ",
  );
}

/**
 * A boolean condition on a ledger or rollouts row aliased `alias`: its rollout matches the search. Through
 * `alias.run_id`, so a view of one run reads that run's partition of rollout_search only. `key` is the column that
 * holds the rollout's id: `rollout_id` on ledger and audit items, `id` on rollouts. An entry without a stored
 * rollout (a score record from outside) never matches.
 */
export function searchCondition(
  query: SearchQuery,
  alias: string,
  key: "rollout_id" | "id" = "rollout_id",
): Prisma.Sql {
  return keyedMatch(query, alias, key, Prisma.empty);
}

function keyedMatch(query: SearchQuery, alias: string, key: string, tail: Prisma.Sql): Prisma.Sql {
  const a = Prisma.raw(alias);
  return Prisma.sql`exists (select 1 from rollout_search s
     where s.run_id = ${a}.run_id and s.rollout_id = ${a}.${Prisma.raw(key)} and ${matchCondition(query, "s")}${tail})`;
}

/**
 * searchCondition as a probe of each row's search row by its key, one row at a time: `offset 0` keeps the planner
 * from turning the EXISTS into a join (or a hashed subplan) that reads every match of the search first. For a walk of
 * the ledger in the browser's order that stops at its page (lib/ledger/browse.ts): its cost is one key lookup per
 * row walked, whatever the search's number of matches. `run`, when the walk is of one run, is named on the probe
 * too: on Citus (docs/scale.md) the walk and its probes are then one query on the run's worker, where a probe
 * correlated with a walk over a subquery cannot be planned otherwise.
 */
export function searchProbe(query: SearchQuery, alias: string, run?: string): Prisma.Sql {
  const inRun = run === undefined ? Prisma.empty : Prisma.sql` and s.run_id = ${run}`;
  return keyedMatch(query, alias, "rollout_id", Prisma.sql`${inRun} offset 0`);
}

/** Rows of a snippet read: the searchable texts of the given rollouts, each keyed by run and rollout id. */
export type SearchTextRow = {
  run_id: string;
  rollout_id: bigint;
  reply: string;
  tools: string;
  args: string;
  results: string;
  ticket: string;
};

/** The searchable texts of some rollouts (a page's): one probe of rollout_search's key per rollout. */
export function searchTextsSql(rollouts: { runId: string; rolloutId: bigint | string }[]): Prisma.Sql {
  const runs = rollouts.map((r) => r.runId);
  const ids = rollouts.map((r) => BigInt(r.rolloutId));
  return Prisma.sql`select s.run_id, s.rollout_id, s.reply, s.tools, s.args, s.results, s.ticket
      from unnest(${runs}::text[], ${ids}::bigint[]) k(run_id, rollout_id)
      join rollout_search s on s.run_id = k.run_id and s.rollout_id = k.rollout_id`;
}

/**
 * Milliseconds a search's statement may run (SET LOCAL statement_timeout in its transaction): a query the index
 * cannot narrow is stopped and answered as such, not left to hold a connection.
 */
export const SEARCH_TIMEOUT_MS = 5_000;

/** SQLSTATE of a statement stopped by statement_timeout. */
export const QUERY_CANCELED = "57014";

/**
 * A condition as text for node-postgres, its placeholders numbered after the `offset` the statement already uses
 * ($1 … $offset), and its values to append to the statement's.
 */
export function numberedSql(condition: Prisma.Sql, offset: number): { text: string; values: unknown[] } {
  return {
    text: condition.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`),
    values: condition.values,
  };
}
