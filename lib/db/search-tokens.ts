// The keys of the search index (rollout_search_blocks, migrations 038 and 042): the words of a text (its runs of
// characters between spaces), which the trigram index is over, and the pairs of adjacent Chinese, Japanese and Korean
// characters, as migration 038's verity_cjk_bigrams computes them. Ingest writes them; a search looks a term up by
// them. Pure.

/**
 * The Chinese, Japanese and Korean characters, text in which has no spaces between words: CJK ideographs (and
 * extension A, compatibility, extensions B–F), hiragana, katakana, hangul jamo and syllables. Migration 038's
 * verity_cjk_bigrams names the same ranges.
 */
const CJK_CLASS =
  "[\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\u3040-\\u309f\\u30a0-\\u30ff\\u1100-\\u11ff\\u3130-\\u318f\\uac00-\\ud7af\\u{20000}-\\u{2fffd}]";
export const CJK_CHAR = new RegExp(CJK_CLASS, "u");
const CJK_RUN = new RegExp(`${CJK_CLASS}{2,}`, "gu");
/**
 * Two CJK characters in a row, without the global flag: a global regex's test() leaves its lastIndex after the match,
 * and matchAll (cjkBigrams) starts its copy there — the pairs of the next text were looked for only past that
 * index (none, for the search's own term, whose pairs condition then narrowed nothing).
 */
const CJK_PAIR = new RegExp(`${CJK_CLASS}{2}`, "u");
/**
 * A UTF-16 unit of a CJK_CLASS character (the high surrogates of U+20000–U+2FFFF for the extensions): a text without
 * one, as most are, has no pairs, and is told so without the Unicode regex's walk over it.
 */
const CJK_UNIT =
  /[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\ud840-\ud87f]/;

export function hasCjkPair(text: string): boolean {
  return CJK_PAIR.test(text);
}

/**
 * The distinct pairs of adjacent CJK characters of a text, sorted: what the index looks a CJK term up by (a trigram
 * needs three characters, and 退款 — refund — is two). Empty when the text has no two CJK characters in a row.
 */
export function cjkBigrams(text: string): string[] {
  if (!CJK_UNIT.test(text)) return [];
  const out = new Set<string>();
  for (const m of text.matchAll(CJK_RUN)) {
    const chars = [...m[0]];
    for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i] + chars[i + 1]);
  }
  return [...out].sort();
}

/**
 * The characters that end a word (migration 042 splits at the same six): a word or phrase found inside a text has
 * each of its space-free parts inside one word of that text, so a block whose words hold those parts is a candidate.
 */
const SEARCH_SPACE = /[ \t\n\r\f\v]+/;

/** Adds the words of a text to `into`, in order: its runs of characters between spaces (empty ones left out). */
export function addSearchWords(text: string, into: { add(word: string): unknown }): void {
  for (const w of text.split(SEARCH_SPACE)) if (w !== "") into.add(w);
}

/** Capital letters whose lower case JavaScript's toLowerCase gives otherwise than PostgreSQL's lower() (foldCase). */
const SPECIAL_LOWER = /[\u0130\u03a3]/;

/**
 * A text in lower case as PostgreSQL's lower() folds it, character by character (Unicode's simple mapping): the
 * blocks' words are stored so (migration 044) and a search looks its words up so, with LIKE, where ILIKE folded each
 * candidate block's whole text again for each of its words. toLowerCase differs from it in two letters: İ, which it
 * makes i and a combining dot, and Σ, which it makes ς at a word's end; here they are i and σ, as lower() makes them.
 */
export function foldCase(text: string): string {
  if (!SPECIAL_LOWER.test(text)) return text.toLowerCase();
  return text.replace(/[\u0130\u03a3]/g, (c) => (c === "\u0130" ? "i" : "\u03c3")).toLowerCase();
}

/** The words of a text (addSearchWords), repeats kept. */
export function searchWords(text: string): string[] {
  const out: string[] = [];
  addSearchWords(text, { add: (w: string) => out.push(w) });
  return out;
}
