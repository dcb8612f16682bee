// What of a rollout is searchable, field by field (rollout_search, migration 038, docs/search.md), and the writer of
// a batch's new rollouts' rows, in the batch's transaction right after the rollouts: a rollout is findable once its
// ingest answers.
import type pg from "pg";
import { copyRows, type CopyValue } from "@/lib/db/copy.ts";
import { addSearchWords, cjkBigrams, foldCase } from "@/lib/db/search-tokens.ts";
import type { CaseRow, RolloutRow } from "@/lib/ledger/store/rows.ts";

/**
 * Characters of one field that are searchable: a tool output of megabytes would cost its whole size in the index
 * for every rollout that carries it. Past this, a field's text is cut (docs/search.md, "Limits").
 */
export const MAX_FIELD_CHARS = 20_000;

/** The searchable texts of one rollout, by field (each at most MAX_FIELD_CHARS). */
export type SearchTexts = { reply: string; tools: string; args: string; results: string; ticket: string };

const ASCII = /^[\x00-\x7f]*$/;

/** A set of keys in jsonb's order, each with its printed head (`"key": `). */
type KeyOrder = { keys: string[]; heads: string[] };

/**
 * The jsonb order of each set of keys met, by the keys as found (joined by U+0000): a run's tool inputs and outputs
 * have a few shapes, each sorted once instead of at every call (the sort was most of ingest's search cost).
 */
const keyOrders = new Map<string, KeyOrder>();

function keyOrder(found: string[]): KeyOrder {
  const id = found.join("\u0000");
  let order = keyOrders.get(id);
  if (order) return order;
  const keys = found.slice();
  // ASCII keys (nearly all) compare by length and code unit as by bytes, without the Buffers
  if (keys.every((k) => ASCII.test(k))) keys.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  else
    keys.sort((a, b) => {
      const la = Buffer.byteLength(a);
      const lb = Buffer.byteLength(b);
      return la !== lb ? la - lb : Buffer.compare(Buffer.from(a), Buffer.from(b));
    });
  order = { keys, heads: keys.map((k) => `${JSON.stringify(k)}: `) };
  if (keyOrders.size >= 10_000) keyOrders.clear();
  keyOrders.set(id, order);
  return order;
}

/**
 * A JSON value as PostgreSQL prints a jsonb (`{"amount": 59.99, "order_id": "O-1"}`: keys shorter first, then in
 * byte order; ", " and ": " between), so a rollout's texts read the same whether ingest wrote them or migration 038
 * filled them from the stored jsonb.
 */
export function jsonbText(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  let out: string;
  if (Array.isArray(v)) {
    out = "[";
    for (let i = 0; i < v.length; i++) out += (i ? ", " : "") + jsonbText(v[i]);
    return out + "]";
  }
  const { keys, heads } = keyOrder(Object.keys(v));
  const o = v as Record<string, unknown>;
  out = "{";
  for (let i = 0; i < keys.length; i++) out += (i ? ", " : "") + heads[i] + jsonbText(o[keys[i]]);
  return out + "}";
}

const asText = (v: unknown): string => (typeof v === "string" ? v : v === undefined ? "" : jsonbText(v));
/** A field's text cut to MAX_FIELD_CHARS. */
export const cutField = (s: string) => (s.length > MAX_FIELD_CHARS ? s.slice(0, MAX_FIELD_CHARS) : s);

/**
 * Bench only: `VERITY_BENCH_NO_SEARCH=1` in an ingesting process's environment makes it compute and write no search
 * rows, so bench/search-ingest.ts can measure the ingest without search in the same run as with it. Nothing else sets
 * it; a database ingested so cannot find those rollouts by text.
 */
const BENCH_NO_SEARCH = process.env.VERITY_BENCH_NO_SEARCH === "1";
const NO_TEXTS: SearchTexts = { reply: "", tools: "", args: "", results: "", ticket: "" };

type StepLike = { type: string; name?: unknown; input?: unknown; output?: unknown };

/**
 * A rollout's searchable texts: its final reply; its tool calls' names, arguments (as JSON, or the text given) and
 * outputs (as jsonbText when not text), one call a line; the ticket's message (from its case; empty when the case
 * is not known).
 */
export function searchTexts(
  rollout: { steps: readonly StepLike[]; finalReply: string },
  ticketMessage: string | null,
): SearchTexts {
  if (BENCH_NO_SEARCH) return NO_TEXTS;
  const tools: string[] = [];
  const args: string[] = [];
  const results: string[] = [];
  for (const s of rollout.steps) {
    if (s.type !== "tool") continue;
    tools.push(asText(s.name));
    args.push(asText(s.input ?? {}));
    results.push(asText(s.output));
  }
  return {
    reply: cutField(rollout.finalReply),
    tools: cutField(tools.join("\n")),
    args: cutField(args.join("\n")),
    results: cutField(results.join("\n")),
    ticket: cutField(ticketMessage ?? ""),
  };
}

/** The CJK character pairs of all of a rollout's texts (its rollout_search.cjk). */
export function searchBigrams(t: SearchTexts): string[] {
  return cjkBigrams(`${t.reply}\n${t.tools}\n${t.args}\n${t.results}\n${t.ticket}`);
}

/**
 * The ticket messages of the rollouts' tickets: from the batch's own new cases and revisions first, then, for the
 * others, from the stored cases (one lookup). A ticket without a case has none.
 */
async function ticketMessages(
  client: pg.PoolClient,
  rows: RolloutRow[],
  batchCases: CaseRow[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const c of batchCases) out.set(c.ticket_id, messageOf(JSON.parse(c.ticket) as unknown));
  const missing = [...new Set(rows.map((r) => r.ticket_id))].filter((t) => !out.has(t)).sort();
  if (missing.length) {
    const { rows: found } = await client.query<{ ticket_id: string; message: string | null }>(
      "select ticket_id, ticket ->> 'message' as message from cases where ticket_id = any($1::text[])",
      [missing],
    );
    for (const f of found) out.set(f.ticket_id, f.message ?? "");
  }
  return out;
}

const messageOf = (ticket: unknown) => {
  const m = (ticket as { message?: unknown } | null)?.message;
  return typeof m === "string" ? m : m === undefined || m === null ? "" : jsonbText(m);
};

/**
 * Rollouts a block of the search index holds at most (rollout_search_blocks, migration 042): more share more of their
 * words (fewer index entries to write), and a search then checks more rollouts that do not match for each block that
 * does. On the demo's runs, 16 rollouts hold about a sixth of the trigrams that 16 single rollouts do.
 */
export const SEARCH_BLOCK_ROWS = 16;

type SearchRow = { runId: string; id: bigint; texts: SearchTexts };

/** A block of the search index as a batch makes it: its run, first and last rollout ids, and its rollouts' words. */
export type SearchBlock = { runId: string; first: bigint; last: bigint; words: Set<string> };

/**
 * The distinct words of a block's rollouts' texts in lower case (foldCase, migration 044), in the order first met: a
 * text met before in the block (its rollouts' ticket, often their tool calls) adds no word.
 */
function blockWords(block: SearchRow[]): Set<string> {
  const words = new Set<string>();
  const seen = new Set<string>();
  for (const { texts } of block)
    for (const f of [texts.reply, texts.tools, texts.args, texts.results, texts.ticket])
      if (!seen.has(f)) {
        seen.add(f);
        addSearchWords(foldCase(f), words);
      }
  return words;
}

/** Items by their run, in the order first met. */
function byRun<T extends { runId: string }>(items: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const run = out.get(item.runId);
    if (run) run.push(item);
    else out.set(item.runId, [item]);
  }
  return out;
}

/**
 * The blocks of a batch's new rollouts: each run's in id order, SEARCH_BLOCK_ROWS at a time. The batch holds its
 * runs' ledger lock, so no other rollout of the run has an id between a block's first and last.
 */
export function searchBlocks(rows: SearchRow[]): SearchBlock[] {
  const out: SearchBlock[] = [];
  for (const run of byRun(rows).values()) {
    run.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (let i = 0; i < run.length; i += SEARCH_BLOCK_ROWS) {
      const block = run.slice(i, i + SEARCH_BLOCK_ROWS);
      out.push({
        runId: block[0].runId,
        first: block[0].id,
        last: block[block.length - 1].id,
        words: blockWords(block),
      });
    }
  }
  return out;
}

/**
 * Which words of a run its blocks leave out (search_omitted_words, migration 046, docs/search.md "Words the blocks
 * leave out"): a word found in more than OMIT_SHARE of the blocks of one batch of at least OMIT_MIN_BLOCKS blocks of
 * the run. Such a word narrows a search to half of the blocks at best, and its trigrams were most of the index's
 * entries (72 % on the demo's runs): every ingest paid their upkeep. A word longer than OMIT_MAX_CHARS stays (the list
 * is a key), and a run lists at most OMIT_MAX_WORDS.
 */
export const OMIT_MIN_BLOCKS = 32;
export const OMIT_SHARE = 0.5;
export const OMIT_MAX_CHARS = 64;
export const OMIT_MAX_WORDS = 2_000;

/**
 * The words of one run's blocks of a batch that the run's blocks should leave out from now on and do not yet
 * (`omitted`): each in more than OMIT_SHARE of the blocks, the most frequent first, at most `room` of them. None when
 * the batch has fewer than OMIT_MIN_BLOCKS blocks of the run: too few to tell a common word from a batch's accident.
 */
export function commonWords(blocks: SearchBlock[], omitted: ReadonlySet<string>, room: number): string[] {
  if (blocks.length < OMIT_MIN_BLOCKS || room <= 0) return [];
  const counts = new Map<string, number>();
  for (const b of blocks)
    for (const w of b.words) if (w.length <= OMIT_MAX_CHARS && !omitted.has(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const min = blocks.length * OMIT_SHARE;
  return [...counts]
    .filter(([, n]) => n > min)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, room)
    .map(([w]) => w);
}

/** A block's row: its run, first and last rollout id, and its words but the omitted, each between spaces (" w1 … wn "). */
export function blockRow(block: SearchBlock, omitted: ReadonlySet<string>): CopyValue[] {
  const kept: string[] = [];
  for (const w of block.words) if (!omitted.has(w)) kept.push(w);
  return [block.runId, String(block.first), String(block.last), ` ${kept.join(" ")} `];
}

/**
 * The blocks' rows of a batch, each run's without the words it leaves out: the run's list as stored, with the common
 * words of the batch's blocks of the run added to it (in the batch's transaction, under its runs' ledger lock, so a
 * run's list grows one batch at a time).
 */
async function blockRows(client: pg.PoolClient, blocks: SearchBlock[]): Promise<CopyValue[][]> {
  const runs = byRun(blocks);
  const { rows } = await client.query<{ run_id: string; word: string }>(
    "select run_id, word from search_omitted_words where run_id = any($1::text[])",
    [[...runs.keys()]],
  );
  const omitted = new Map<string, Set<string>>([...runs.keys()].map((r) => [r, new Set<string>()]));
  for (const r of rows) omitted.get(r.run_id)!.add(r.word);
  const added: { run: string; word: string }[] = [];
  for (const [run, runBlocks] of runs) {
    const list = omitted.get(run)!;
    for (const word of commonWords(runBlocks, list, OMIT_MAX_WORDS - list.size)) {
      list.add(word);
      added.push({ run, word });
    }
  }
  if (added.length)
    await client.query(
      `insert into search_omitted_words (run_id, word) select * from unnest($1::text[], $2::text[])
       on conflict do nothing`,
      [added.map((a) => a.run), added.map((a) => a.word)],
    );
  return blocks.map((b) => blockRow(b, omitted.get(b.runId)!));
}

/**
 * Writes one rollout_search row per new rollout (ids as allocated for them, with its CJK pairs) and their blocks'
 * words, by COPY.
 */
export async function insertSearchRows(
  client: pg.PoolClient,
  rows: RolloutRow[],
  ids: string[],
  batchCases: CaseRow[],
): Promise<void> {
  if (rows.length === 0 || BENCH_NO_SEARCH) return;
  const tickets = await ticketMessages(client, rows, batchCases);
  const search: SearchRow[] = rows.map((r, i) => ({
    runId: r.run_id,
    id: BigInt(ids[i]),
    texts: { ...r.search, ticket: cutField(tickets.get(r.ticket_id) ?? "") },
  }));
  // the pairs hold CJK characters only: no comma, quote, brace or space needs quoting in the array literal
  const data: CopyValue[][] = search.map(({ runId, texts }, i) => [
    runId,
    ids[i],
    rows[i].step,
    texts.reply,
    texts.tools,
    texts.args,
    texts.results,
    texts.ticket,
    `{${searchBigrams(texts).join(",")}}`,
  ]);
  const columns = ["run_id", "rollout_id", "step", "reply", "tools", "args", "results", "ticket", "cjk"];
  await copyRows(client, "rollout_search", columns, data);
  const blocks = await blockRows(client, searchBlocks(search));
  await copyRows(client, "rollout_search_blocks", ["run_id", "first_id", "last_id", "words"], blocks);
}
