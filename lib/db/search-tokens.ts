// The keys of rollout_search's index of Chinese, Japanese and Korean text (migration 038): the pairs of adjacent
// CJK characters, as migration 038's verity_cjk_bigrams computes them for the rows it fills. Ingest writes them;
// a search looks a term up by them. Pure.

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
