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

export function hasCjkPair(text: string): boolean {
  CJK_RUN.lastIndex = 0;
  return CJK_RUN.test(text);
}

/**
 * The distinct pairs of adjacent CJK characters of a text, sorted: what the index looks a CJK term up by (a trigram
 * needs three characters, and 退款 — refund — is two). Empty when the text has no two CJK characters in a row.
 */
export function cjkBigrams(text: string): string[] {
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

/** The words of a text: its runs of characters between spaces (empty ones left out). */
export function searchWords(text: string): string[] {
  return text.split(SEARCH_SPACE).filter((w) => w !== "");
}
