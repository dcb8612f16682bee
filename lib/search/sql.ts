import { Prisma } from "@/lib/generated/prisma/client.ts";
import { cjkBigrams, foldCase, hasCjkPair, searchWords } from "@/lib/db/search-tokens.ts";
import type { SearchField, SearchQuery, SearchTerm } from "@/lib/search/parse.ts";

// A search as SQL over rollout_search (migrations 038, 042, 044, docs/search.md): one row per rollout in its run's
// partition with its texts by field and its CJK character pairs (a GIN index), and rollout_search_blocks, blocks of
// up to 16 of a run's rollouts with the distinct words of their texts in lower case (a trigram index). A term finds
// the blocks that hold its words (in lower case, with LIKE), or the rollouts that hold its CJK pairs, and each rollout
// found is then checked as written, in its field (ILIKE: case-insensitive).

/** The column of a field in rollout_search. */
const FIELD_COLUMN: Record<SearchField, string> = {
  reply: "reply",
  tool: "tools",
  arg: "args",
  result: "results",
  ticket: "ticket",
};

/** All of a rollout's texts joined by spaces: a term without a field is found in it. */
function docSql(s: string): Prisma.Sql {
  const a = Prisma.raw(s);
  return Prisma.sql`(${a}.reply || ' ' || ${a}.tools || ' ' || ${a}.args || ' ' || ${a}.results || ' ' || ${a}.ticket)`;
}

/**
 * A term without a field found in a rollout's texts (rollout_search aliased `s`): in its texts joined (docSql), where
 * a phrase may run from one field into the next — but for a term checked with LIKE (caseless) and without a space,
 * which is found in the joined texts exactly where it is found in one of them (it cannot hold the space between two):
 * it is checked in each in turn until one holds it, the texts not copied into one. On 300,000 rows of a run at 10 M
 * rollouts (one process), LIKE field by field took 5–10 % less than on the joined texts; a regular expression
 * (an ASCII term), 10–15 % more, five calls costing more than the copy (docs/benchmarks.md, "Search").
 */
function docMatchSql(s: string, text: string): Prisma.Sql {
  if (text.includes(" ") || !caseless(text)) return matchSql(docSql(s), text);
  const fields = Object.values(FIELD_COLUMN).map((c) => matchSql(Prisma.raw(`${s}.${c}`), text));
  return Prisma.sql`(${Prisma.join(fields, " or ")})`;
}

/**
 * Whether a term is one pair of CJK characters and nothing else (退款): a rollout whose pairs (its texts' pairs, which
 * the index holds) include it has it in one of its texts, so the pair found is the term found.
 */
const isOnePair = (text: string) => [...text].length === 2 && hasCjkPair(text);

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A LIKE pattern that matches `text` literally anywhere: %, _ and \ are escaped (backslash is LIKE's escape). */
export function likePattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/**
 * A case-insensitive regular expression (`~*`) that a text holds an ASCII term's text literally exactly where ILIKE
 * '%text%' finds it: each character but letters and digits escaped (in PostgreSQL's regular expressions a backslash
 * before any other character is that character), and `i` and `k` written with the two capitals beyond ASCII whose
 * lower case is theirs (İ, U+0130, and the Kelvin sign, U+212A), which ILIKE, folding the text's case, matches and a
 * regular expression's own case variants would not. Null for a term with a character beyond ASCII (ILIKE then).
 */
export function caselessRegex(text: string): string | null {
  if (!/^[\x00-\x7f]*$/.test(text)) return null;
  let out = "";
  for (const ch of text)
    out += /[iI]/.test(ch) ? "[i\u0130]" : /[kK]/.test(ch) ? "[k\u212a]" : /[A-Za-z0-9]/.test(ch) ? ch : `\\${ch}`;
  return out;
}

/**
 * A text holds a term's text: LIKE for a term without letters that have a case (Chinese, digits), a case-insensitive
 * regular expression for an ASCII term, ILIKE for the others — the same rows each way. ILIKE folds the case of every
 * candidate's whole text first, which on multibyte text cost 1.2 s of a 1.3 s first page at 200,000 rollouts before
 * LIKE took the caseless terms; the regular expression compares each character with the term's few case variants,
 * 30–40 % less CPU than ILIKE on the researchers' checks at 1 M rollouts (docs/benchmarks.md, "Search").
 */
function matchSql(target: Prisma.Sql, text: string): Prisma.Sql {
  if (caseless(text)) return Prisma.sql`${target} like ${likePattern(text)}`;
  const regex = caselessRegex(text);
  return regex === null ? Prisma.sql`${target} ilike ${likePattern(text)}` : Prisma.sql`${target} ~* ${regex}`;
}

/** Whether a text has no letters with a case (Chinese, digits, punctuation): LIKE finds it as ILIKE would. */
const caseless = (text: string) => text.toLowerCase() === text.toUpperCase();

/**
 * A term's check of one rollout's texts (rollout_search aliased `s`), in its field or in all of them. A term with CJK
 * text is looked up by its character pairs first (the rows' GIN index, 038), then checked as written — but for one
 * pair in no field (isOnePair), which its pair alone finds: at 10 M rollouts, 0.28 s less of `退款 -refund`'s 1.76 s
 * gathering in one process (docs/benchmarks.md, "Search").
 */
function rowSql(t: SearchTerm, s: string): Prisma.Sql {
  const found = () =>
    t.field ? matchSql(Prisma.raw(`${s}.${FIELD_COLUMN[t.field]}`), t.text) : docMatchSql(s, t.text);
  if (t.exclude) return Prisma.sql`not (${found()})`;
  if (!hasCjkPair(t.text)) return found();
  // the index holds the rows with pairs only (042): the condition names its predicate so the planner uses it
  const pairs = Prisma.sql`cardinality(${Prisma.raw(s)}.cjk) > 0 and ${Prisma.raw(s)}.cjk @> ${cjkBigrams(t.text)}::text[]`;
  return !t.field && isOnePair(t.text) ? pairs : Prisma.sql`${pairs} and ${found()}`;
}

/**
 * Whether pg_trgm finds a trigram in a LIKE pattern's word (a run of letters and digits gets two spaces before it
 * when something other than a wildcard precedes it, one after when something follows it, and needs three
 * characters with them): a pattern without one would make the index read all of itself.
 */
function hasTrigram(word: string, spaceBefore: boolean, spaceAfter: boolean): boolean {
  for (const m of word.matchAll(/[\p{L}\p{N}]+/gu)) {
    const before = m.index > 0 || spaceBefore ? 2 : 0;
    const after = m.index + m[0].length < word.length || spaceAfter ? 1 : 0;
    if ([...m[0]].length + before + after >= 3) return true;
  }
  return false;
}

/**
 * A search and the words its runs' blocks may leave out (search_omitted_words, migration 046: loadIndexedSearch, in
 * lib/search/data.ts): what the blocks can be asked for. Every reader of the blocks takes one, so none asks them for a
 * word they left out.
 */
export type IndexedSearch = SearchQuery & { omitted: ReadonlySet<string> };

/**
 * Whether a word the blocks may leave out could hold a part of a term where the part's block condition looks for it
 * (blockSql): the first part at a word's end, the last at a word's start, one that is both anywhere in a word, and
 * one between as a whole word. A block may then hold the part's text in a word it left out, so the blocks are not
 * asked for that part. A part held by a word in most blocks narrows the search little anyway.
 */
export function mayBeLeftOut(part: string, first: boolean, last: boolean, omitted: ReadonlySet<string>): boolean {
  if (!first && !last) return omitted.has(part);
  for (const w of omitted)
    if (first && last ? w.includes(part) : first ? w.endsWith(part) : w.startsWith(part)) return true;
  return false;
}

/**
 * Whether the blocks may be asked for a term's words: not for an exclusion (checked on the rollouts only) nor for a
 * term with CJK text (looked up by its pairs in rollout_search).
 */
export const asksBlocks = (t: SearchTerm) => !t.exclude && !hasCjkPair(t.text);

/**
 * A term's conditions on a block (rollout_search_blocks aliased `b`, its words stored in lower case as
 * " w1 w2 … wn "): a text that holds the term holds each of its space-free parts inside one of its words, the first
 * part at a word's end, the last at a word's start and those between as whole words. Each part is looked for in lower
 * case (foldCase, as the words were stored: migration 044) with LIKE, which reads the block's text as it is, where
 * ILIKE folded its case again for each part. None for an exclusion (checked on the rollouts only), a term with CJK
 * text (looked up by its pairs in rollout_search), a part that gives the trigram index nothing to look up, nor a part
 * that a word the blocks may leave out could hold (mayBeLeftOut).
 */
function blockSql(t: SearchTerm, b: string, omitted: ReadonlySet<string>): { sql: Prisma.Sql; word: string }[] {
  if (!asksBlocks(t)) return [];
  const words = searchWords(foldCase(t.text));
  const out: { sql: Prisma.Sql; word: string }[] = [];
  words.forEach((w, i) => {
    const first = i === 0;
    const last = i === words.length - 1;
    if (!hasTrigram(w, !first, !last) || mayBeLeftOut(w, first, last, omitted)) return;
    const pattern = `${first ? "%" : "% "}${escapeLike(w)}${last ? "%" : " %"}`;
    out.push({ sql: Prisma.sql`${Prisma.raw(b)}.words like ${pattern}`, word: w });
  });
  return out;
}

/**
 * Every term's conditions on a block (blockSql), in the order they are best checked: the index finds the blocks that
 * have all their trigrams, and then each of those blocks is checked against the conditions in turn until one fails —
 * most blocks of a search that finds little fail one, so it comes first: a longer word before a shorter (fewer texts
 * hold it). `"has been processed" O-20007` at 1 M rollouts: 2,000 blocks with every trigram, 120–150 ms to check as
 * written, 44–48 ms with ` processed` first (docs/benchmarks.md, "Search"; with ILIKE then, before the words were
 * stored in lower case).
 */
function blockConditions(query: IndexedSearch, b: string): Prisma.Sql[] {
  return query.terms
    .flatMap((t) => blockSql(t, b, query.omitted))
    .sort((x, y) => [...y.word].length - [...x.word].length)
    .map((c) => c.sql);
}

/** The search's checks of a rollout_search row aliased `s`: every term, as written, in its field. */
export function matchCondition(query: SearchQuery, s = "s"): Prisma.Sql {
  return Prisma.join(
    query.terms.map((t) => rowSql(t, s)),
    " and ",
  );
}

/**
 * A boolean condition on a ledger or rollouts row aliased `alias`: its rollout matches the search. The blocks of its
 * run that hold the terms' words (the index), then its rollout_search row by key, checked as written; a search with
 * no word for the blocks (Chinese terms only) reads the rows by their pairs' index instead. Through
 * `alias.run_id`, so a view of one run reads that run's partitions only. `key` is the column that holds the
 * rollout's id: `rollout_id` on ledger and audit items, `id` on rollouts. An entry without a stored rollout (a score
 * record from outside) never matches.
 */
export function searchCondition(
  query: IndexedSearch,
  alias: string,
  key: "rollout_id" | "id" = "rollout_id",
): Prisma.Sql {
  const a = Prisma.raw(alias);
  const blocks = blockConditions(query, "b");
  // Without a word for the blocks (Chinese terms, parts too short), the rollouts' own pairs' index finds them.
  if (blocks.length === 0)
    return Prisma.sql`exists (select 1 from rollout_search s
       where s.run_id = ${a}.run_id and s.rollout_id = ${a}.${Prisma.raw(key)} and ${matchCondition(query, "s")})`;
  // Each block's rollouts are read by their key range, in a loop over the blocks found (`offset 0`): joined freely,
  // the planner compared every block with every matching row of the run (34 s for a term in 0.1 % of 100,000).
  return Prisma.sql`exists (select 1 from rollout_search_blocks b
       cross join lateral (select s.rollout_id from rollout_search s
                            where s.run_id = b.run_id and s.rollout_id between b.first_id and b.last_id
                              and ${matchCondition(query, "s")} offset 0) s
     where b.run_id = ${a}.run_id and s.rollout_id = ${a}.${Prisma.raw(key)} and ${Prisma.join(blocks, " and ")})`;
}

/**
 * The id ranges (a block's first and last rollout ids) of up to `limit` blocks of one run whose words hold the
 * search's words (the trigram index): every rollout of the run that matches lies in one of them. Null when the search
 * has no word for the blocks (Chinese terms only, parts too short).
 */
export function searchBlocksSql(query: IndexedSearch, run: string, limit: number): Prisma.Sql | null {
  const blocks = blockConditions(query, "b");
  if (blocks.length === 0) return null;
  return Prisma.sql`select b.first_id, b.last_id from rollout_search_blocks b
     where b.run_id = ${run} and ${Prisma.join(blocks, " and ")} limit ${limit}`;
}

/**
 * The ids (and steps) of the rollouts of one run that match the search within the given id ranges
 * (searchBlocksSql's), each range's rows read by their key and checked as written.
 */
export function rangeMatchIdsSql(query: SearchQuery, run: string, ranges: { first: bigint; last: bigint }[]) {
  return Prisma.sql`select s.rollout_id, s.step
      from unnest(${ranges.map((r) => r.first)}::bigint[], ${ranges.map((r) => r.last)}::bigint[]) r(first_id, last_id)
      cross join lateral (select s.rollout_id, s.step from rollout_search s
                           where s.run_id = ${run} and s.rollout_id between r.first_id and r.last_id
                             and ${matchCondition(query, "s")} offset 0) s`;
}

/**
 * The ids (and steps) of up to `limit` rollouts of one run that match a search with Chinese, Japanese or Korean text, found by
 * their character pairs' index and checked as written; null for a search without such a term (no index to ask).
 */
export function pairMatchIdsSql(query: SearchQuery, run: string, limit: number): Prisma.Sql | null {
  if (!query.terms.some((t) => !t.exclude && hasCjkPair(t.text))) return null;
  return scanMatchIdsSql(query, run, limit);
}

/**
 * The ids (and steps) of up to `limit` rollouts of one run that match the search: its rows found by the pairs' index
 * when the search names CJK pairs (pairMatchIdsSql), else each of the run's rows read and checked — for a run with few
 * rollouts (runBlocksSql) whose search has nothing to ask of an index.
 */
export function scanMatchIdsSql(query: SearchQuery, run: string, limit: number): Prisma.Sql {
  return Prisma.sql`select s.rollout_id, s.step from rollout_search s
     where s.run_id = ${run} and ${matchCondition(query, "s")} limit ${limit}`;
}

/** How many blocks of the index one run has (rollout_search_blocks, up to 16 rollouts each), counted up to `limit`. */
export function runBlocksSql(run: string, limit: number): Prisma.Sql {
  return Prisma.sql`select count(*)::int as n
      from (select 1 from rollout_search_blocks b where b.run_id = ${run} limit ${limit}) b`;
}

/** Rollouts of one run by id (a subquery's `rollout_id`), with their trajectory ids. */
const withTrajectories = (ids: Prisma.Sql, run: string) =>
  Prisma.sql`select s.rollout_id, t.trajectory_id from (${ids}) s join rollouts t on t.run_id = ${run} and t.id = s.rollout_id`;

/**
 * The rollouts of one run, with their trajectory ids, that match the search within the given id ranges
 * (rangeMatchIdsSql), for the view's entries of a few matches (lib/ledger/browse.ts, fewMatches).
 */
export function rangeMatchesSql(query: SearchQuery, run: string, ranges: { first: bigint; last: bigint }[]) {
  return withTrajectories(rangeMatchIdsSql(query, run, ranges), run);
}

/** Up to `limit` rollouts of one run, with their trajectory ids, found by the pairs' index (pairMatchIdsSql). */
export function pairMatchesSql(query: SearchQuery, run: string, limit: number): Prisma.Sql | null {
  const ids = pairMatchIdsSql(query, run, limit);
  return ids && withTrajectories(ids, run);
}

/**
 * The search checked on each row's own search row, found by its key, one row at a time: `offset 0` keeps the planner
 * from turning the EXISTS into a join (or a hashed subplan) that reads every match of the search first. For a walk of
 * the ledger in the browser's order that stops at its page (lib/ledger/browse.ts): its cost is one key lookup per
 * row walked, whatever the search's number of matches. `run`, when the walk is of one run, is named on the probe
 * too: on Citus (docs/scale.md) the walk and its probes are then one query on the run's worker, where a probe
 * correlated with a walk over a subquery cannot be planned otherwise.
 */
export function searchProbe(query: SearchQuery, alias: string, run?: string): Prisma.Sql {
  const inRun = run === undefined ? Prisma.empty : Prisma.sql` and s.run_id = ${run}`;
  const a = Prisma.raw(alias);
  return Prisma.sql`exists (select 1 from rollout_search s
     where s.run_id = ${a}.run_id and s.rollout_id = ${a}.rollout_id${inRun} and ${matchCondition(query, "s")} offset 0)`;
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
  // The rollouts of one run (a page of the browser) name their run as a constant: one partition on one node, and on
  // Citus (docs/scale.md) one task on the run's worker, where the keys' join alone was a task on every shard.
  const one = new Set(runs).size === 1 ? Prisma.sql` where s.run_id = ${runs[0]}` : Prisma.empty;
  return Prisma.sql`select s.run_id, s.rollout_id, s.reply, s.tools, s.args, s.results, s.ticket
      from unnest(${runs}::text[], ${ids}::bigint[]) k(run_id, rollout_id)
      join rollout_search s on s.run_id = k.run_id and s.rollout_id = k.rollout_id${one}`;
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
