// The limits every boundary that accepts wire objects holds them to (ingest API and CLI, `verity score`), said once.
// They exist because what lies past them does not fail cleanly: a value nested thousands of levels deep overflows
// the stack of every recursive step after JSON.parse (canonical JSON, hashing, JSON.stringify, PostgreSQL's jsonb
// parser), and an id of a few thousand characters no longer fits a PostgreSQL index row (2,704 bytes), so the write
// of its whole batch fails. Pure.

/** The largest int4 (`Int` in schema.prisma): a `step`, `sample_index` or `tool_steps`, and every 32-bit id. */
export const INT4_MAX = 2_147_483_647;

/**
 * Entries a list inside a record may have. No real record comes near: the verifier writes at most one reason per
 * check of a spec and one claim per tool call or mention, and agent rollouts run to tens or hundreds of steps. A list
 * past one used to be stored whole and then rendered whole on every page showing the rollout.
 */
export const MAX_REASONS = 1_000;
export const MAX_CLAIMS = 1_000;
export const MAX_STEPS = 10_000;

/** Levels of objects and arrays a value may have; the line's own object is level 1. */
export const MAX_DEPTH = 64;

/**
 * Characters an id, name or code may have. At four UTF-8 bytes a character, the widest index over ids (the
 * clustering index: run, category, ticket) stays under PostgreSQL's 2,704-byte index row at this length.
 */
export const MAX_ID_LENGTH = 200;

/**
 * What an id may not contain: control characters (Unicode Cc: C0, DEL, C1), format characters (Cf: the bidirectional
 * overrides and isolates, zero-width joiners and spaces, the BOM, soft hyphens), lone surrogates (Cs), spaces other
 * than U+0020 (Zs: no-break and the typographic spaces) and line and paragraph separators (Zl, Zp) — each lets two
 * different ids look the same, or one look like another — and `<`, `>`, `"`, `'`, backtick and backslash.
 */
export const ID_FORBIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}<>"'`\\]|(?! )\p{Zs}/u;

export const ID_TOO_LONG = `too long: at most ${MAX_ID_LENGTH} characters`;
export const ID_BAD_CHARACTER =
  "an id has no control or format characters, no spaces but U+0020, and none of <, >, \", ', ` or \\";

const CATEGORY: [RegExp, string][] = [
  [/\p{Cc}/u, "a control character"],
  [/\p{Cf}/u, "a format character"],
  [/\p{Cs}/u, "a lone surrogate"],
  [/\p{Zs}/u, "a space other than U+0020"],
  [/[\p{Zl}\p{Zp}]/u, "a line or paragraph separator"],
];

/** The first character an id may not have, named with its code point and 1-based position, or null. */
export function idCharacterProblem(s: string): string | null {
  const m = ID_FORBIDDEN.exec(s);
  if (!m) return null;
  const ch = m[0];
  const position = [...s.slice(0, m.index)].length + 1;
  const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  const kind = CATEGORY.find(([re]) => re.test(ch))?.[1];
  const what = kind ? `${code} (${kind})` : JSON.stringify(ch);
  return `contains ${what} at character ${position}: ${ID_BAD_CHARACTER}`;
}

/** Why a string cannot be an id, or null when it can (the length of the empty string is the schema's business). */
export function idProblem(s: string): string | null {
  if (s.length > MAX_ID_LENGTH) return `${ID_TOO_LONG} (got ${s.length})`;
  return idCharacterProblem(s);
}

/**
 * Where a value is nested deeper than `max` levels: the dotted path of the first object or array past the limit
 * (`trajectory.steps.0.output.a.…`), or null. The walk itself never goes deeper than `max + 1`, so it cannot
 * overflow whatever the input; it visits only objects and arrays.
 */
export function depthIssue(value: unknown, max = MAX_DEPTH): { path: string; message: string } | null {
  if (value === null || typeof value !== "object") return null;
  const path = deeper(value, 1, max);
  if (!path) return null;
  return { path: path.reverse().join("."), message: `nested deeper than ${max} levels of objects and arrays` };
}

/**
 * depthIssue for a value parsed from `text`. A value cannot be deeper than the number of `{` and `[` in its text,
 * and nearly every line has fewer than the limit: counting them (natively, with indexOf) is several times cheaper
 * than walking the value, which happens only for a line with more.
 */
export function depthIssueOfText(
  text: string,
  value: unknown,
  max = MAX_DEPTH,
): { path: string; message: string } | null {
  let n = 0;
  for (let i = text.indexOf("{"); i >= 0 && n <= max; i = text.indexOf("{", i + 1)) n++;
  for (let i = text.indexOf("["); i >= 0 && n <= max; i = text.indexOf("[", i + 1)) n++;
  return n <= max ? null : depthIssue(value, max);
}

/** The path (innermost segment first) to the first container below `v` (at `level`) past `max`, or null. */
function deeper(v: object, level: number, max: number): (string | number)[] | null {
  if (level > max) return [];
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (x !== null && typeof x === "object") {
        const p = deeper(x, level + 1, max);
        if (p) {
          p.push(i);
          return p;
        }
      }
    }
    return null;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (x !== null && typeof x === "object") {
      const p = deeper(x, level + 1, max);
      if (p) {
        p.push(k);
        return p;
      }
    }
  }
  return null;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why PostgreSQL cannot store a string (text or jsonb), or null: a NUL character or an unpaired surrogate. */
function unstorableText(s: string): string | null {
  if (s.includes("\u0000")) return "contains the character U+0000, which PostgreSQL cannot store";
  if (LONE_SURROGATE.test(s)) return "contains an unpaired UTF-16 surrogate, which PostgreSQL cannot store";
  return null;
}

/**
 * The first string of a value (a string value or an object's key) PostgreSQL cannot store, with its dotted path
 * (`trajectory.steps.3.output`; a key is named by the path of its value), or null. Walks without recursion, so any
 * depth is safe; called only for a line whose text has a `\u` escape (the only way JSON spells either character).
 */
export function unstorableIssue(value: unknown): { path: string; message: string } | null {
  const stack: [unknown, string][] = [[value, ""]];
  const join = (base: string, k: string | number) => (base ? `${base}.${k}` : String(k));
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === "string") {
      const message = unstorableText(v);
      if (message) return { path, message };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], join(path, i)]);
    } else if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      for (const k of keys) {
        const message = unstorableText(k);
        if (message) return { path: join(path, k), message: `the key ${message}` };
      }
      for (let i = keys.length - 1; i >= 0; i--)
        stack.push([(v as Record<string, unknown>)[keys[i]], join(path, keys[i])]);
    }
  }
  return null;
}
