import type { Result } from "@/lib/result.ts";
import { CJK_CHAR, hasCjkPair } from "@/lib/db/search-tokens.ts";

// The search language of the trajectory browser, the rows APIs and `verity export --search` (docs/search.md):
//   refund processed        every word must appear (anywhere: reply, tool names, arguments, results, ticket)
//   "has been processed"    an exact phrase
//   -apology                the rollout must not contain it
//   reply:refund            in one field: reply (the final reply), tool (a tool call's name), arg (text inside a
//   tool:finance.issue_refund  call's arguments), result (a tool's output), ticket (the customer's message)
//   arg:"59.99"  -result:"error"  reply:"已为您安排退款"
// Case-insensitive; Chinese, Japanese and Korean text is matched as written (no word breaks needed).

export const SEARCH_FIELDS = ["reply", "tool", "arg", "result", "ticket"] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** One condition of a search: `text` (as written, never empty) must (or, `exclude`, must not) appear. */
export type SearchTerm = {
  /** null: any field. */
  field: SearchField | null;
  text: string;
  /** Written in quotes (may hold spaces). */
  phrase: boolean;
  exclude: boolean;
};

export type SearchQuery = { terms: SearchTerm[]; text: string };

/** Characters a search may have (a pasted 10 KB log is refused, not scanned for). */
export const MAX_SEARCH_LENGTH = 500;
/** Terms a search may have: each is one more condition every candidate rollout is checked against. */
export const MAX_SEARCH_TERMS = 12;
/**
 * Letters or digits a word needs to be looked up in the index (it is looked up by its trigrams, and fewer give
 * none, or one that most rollouts have); Chinese, Japanese and Korean text needs two in a row (character pairs).
 * Exclusions need no index and may be shorter.
 */
export const MIN_WORD_CHARS = 3;

/** A refused search: the sentence names the character where the problem is; `field` is the browser's parameter. */
export type SearchError = { error: string; field: "q" };
type Fail = SearchError;
const fail = (position: number, message: string): { ok: false } & Fail => ({
  ok: false,
  error: `${message} (at character ${position + 1})`,
  field: "q",
});

/**
 * Parses a search. Errors name the character (1-based) where the problem is: an unclosed quote, an empty field or
 * phrase, an unknown field, a word too short to look up, too many terms, a search too long.
 */
export function parseSearch(text: string): Result<{ query: SearchQuery }, Fail> {
  if (text.length > MAX_SEARCH_LENGTH)
    return fail(MAX_SEARCH_LENGTH, `a search has at most ${MAX_SEARCH_LENGTH} characters (given ${text.length})`);
  const terms: SearchTerm[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/u.test(text[i])) {
      i++;
      continue;
    }
    const read = readTerm(text, i);
    if (!read.ok) return read;
    if (terms.length === MAX_SEARCH_TERMS)
      return fail(i, `a search has at most ${MAX_SEARCH_TERMS} terms; narrow it with a phrase in quotes`);
    terms.push(read.term);
    i = read.end;
  }
  if (!terms.length) return fail(0, "the search is empty");
  if (terms.every((t) => t.exclude))
    return fail(0, "a search needs at least one term to find, not only terms to exclude (-word)");
  return { ok: true, query: { terms, text: text.trim() } };
}

type Read = { ok: true; term: SearchTerm; end: number } | ({ ok: false } & Fail);

/** One term from `start` (not whitespace): [-][field:](word | "phrase"). */
function readTerm(text: string, start: number): Read {
  let i = start;
  const exclude = text[i] === "-";
  if (exclude) i++;
  let field: SearchField | null = null;
  const prefix = /^([A-Za-z_]+):/.exec(text.slice(i, i + 12));
  if (prefix) {
    const name = prefix[1].toLowerCase();
    if (!(SEARCH_FIELDS as readonly string[]).includes(name))
      return fail(
        i,
        `unknown field "${prefix[1]}:"; fields are ${SEARCH_FIELDS.map((f) => `${f}:`).join(", ")} (put text with a colon in quotes)`,
      );
    field = name as SearchField;
    i += prefix[0].length;
  }
  let value: string;
  let phrase = false;
  let end: number;
  if (text[i] === '"') {
    const close = text.indexOf('"', i + 1);
    if (close < 0) return fail(i, "this quote is never closed");
    value = text.slice(i + 1, close).trim();
    phrase = true;
    end = close + 1;
    if (!value) return fail(i, "the phrase is empty");
  } else {
    end = i;
    while (end < text.length && !/\s/u.test(text[end])) end++;
    value = text.slice(i, end);
    const quote = value.indexOf('"');
    if (quote >= 0) return fail(i + quote, 'a quote inside a word; put the whole phrase in quotes ("…")');
    if (!value)
      return fail(start, field ? `"${field}:" needs a word or a "phrase" after it` : "a lone - needs a word after it");
  }
  if (!exclude && !lookupable(value))
    return fail(
      i,
      `"${clip(value)}" is too short to search for: a word needs ${MIN_WORD_CHARS} letters or digits, or 2 Chinese/Japanese/Korean characters`,
    );
  return { ok: true, term: { field, text: value, phrase, exclude }, end };
}

/** Whether the index can look a term up: enough letters/digits for trigrams, or a pair of CJK characters. */
function lookupable(value: string): boolean {
  if (hasCjkPair(value)) return true;
  const letters = value.replace(new RegExp(CJK_CHAR.source, "gu"), "").match(/[\p{L}\p{N}]/gu);
  return (letters?.length ?? 0) >= MIN_WORD_CHARS;
}

const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

/** The search as text again (for the URL, a saved search, a label). */
export function formatSearch(q: SearchQuery): string {
  return q.terms
    .map(
      (t) =>
        `${t.exclude ? "-" : ""}${t.field ? `${t.field}:` : ""}${t.phrase || /\s/u.test(t.text) ? `"${t.text}"` : t.text}`,
    )
    .join(" ");
}
