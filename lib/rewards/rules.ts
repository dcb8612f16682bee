// The rule components: format (a regular expression over the whole reply), exact match (an extracted answer against
// the reference, after the version's normalisation) and math (both sides evaluated exactly, within a relative
// tolerance). Pure. A reply without the answer scores 0; a reference that is missing or not a number is the
// component's error — a broken function is never read as a wrong answer.
import { MathParseError, mathEqual, parseMath } from "@/lib/rewards/math.ts";
import type { Normalize } from "@/lib/rewards/schema.ts";

export type RuleOutcome = { ok: true; value: number; detail: Record<string, unknown> } | { ok: false; error: string };

const CURRENCY = /[$€£¥₹₩]|\b(?:USD|EUR|GBP|CNY|RMB|JPY)\b|元/g;

/** The version's normalisation, applied to both sides of a comparison. */
export function normalizeText(text: string, n: Normalize): string {
  let s = text;
  if (n.currency) s = s.replace(CURRENCY, "");
  if (n.thousands) s = s.replace(/(\d)[,\u00a0\u202f ](?=\d{3}(?!\d))/g, "$1");
  if (n.whitespace) s = s.replace(/\s+/g, " ");
  if (n.trim || n.currency) s = s.trim();
  if (n.case) s = s.toLowerCase();
  return s;
}

export function formatValue(re: RegExp, reply: string): RuleOutcome {
  re.lastIndex = 0;
  const matched = re.test(reply);
  return { ok: true, value: matched ? 1 : 0, detail: { matched } };
}

/** The answer in the reply: the pattern's first capture group (or the whole match), or the whole reply without one. */
export function extractAnswer(re: RegExp | null, reply: string): string | null {
  if (!re) return reply;
  re.lastIndex = 0;
  const m = re.exec(reply);
  if (!m) return null;
  return m.groups?.answer ?? m[1] ?? m[0];
}

export function exactMatchValue(re: RegExp | null, reply: string, reference: string, n: Normalize): RuleOutcome {
  const answer = extractAnswer(re, reply);
  if (answer === null) return { ok: true, value: 0, detail: { extracted: null, reference } };
  const a = normalizeText(answer, n);
  const b = normalizeText(reference, n);
  return { ok: true, value: a === b ? 1 : 0, detail: { extracted: answer, normalized: a, reference: b } };
}

/** A plain decimal of at most 15 significant digits: exact as a double, so it needs no rational arithmetic. */
const PLAIN_DECIMAL = /^-?\d{1,15}(?:\.\d{1,15})?$/;

function plainDecimal(text: string): number | null {
  const t = text.trim();
  return PLAIN_DECIMAL.test(t) && t.replace(/[-.]/g, "").replace(/^0+/, "").length <= 15 ? Number(t) : null;
}

export function mathValue(
  re: RegExp | null,
  reply: string,
  reference: string,
  tolerance: number,
  n: Normalize,
): RuleOutcome {
  const answer = extractAnswer(re, reply);
  const fastWant = plainDecimal(normalizeText(reference, n));
  const fastGot = answer === null ? null : plainDecimal(normalizeText(answer, n));
  if (fastWant !== null && fastGot !== null) {
    // Both plain decimals (the common case): the same comparison as mathEqual, in doubles.
    const equal = fastGot === fastWant || Math.abs(fastGot - fastWant) <= tolerance * Math.abs(fastWant);
    return { ok: true, value: equal ? 1 : 0, detail: { extracted: answer, reference, tolerance } };
  }
  let want;
  try {
    want = parseMath(normalizeText(reference, n));
  } catch (err) {
    return {
      ok: false,
      error: `the reference ${JSON.stringify(reference)} is not a number: ${(err as Error).message}`,
    };
  }
  if (answer === null) return { ok: true, value: 0, detail: { extracted: null, reference } };
  try {
    const got = parseMath(normalizeText(answer, n));
    const equal = mathEqual(got, want, tolerance);
    return { ok: true, value: equal ? 1 : 0, detail: { extracted: answer, reference, tolerance } };
  } catch (err) {
    if (!(err instanceof MathParseError)) throw err;
    return { ok: true, value: 0, detail: { extracted: answer, reference, unparsed: err.message } };
  }
}
