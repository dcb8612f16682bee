// How much of one record a page renders. A record's lists (guardrail hits, reasons, claims, steps) and texts (the
// final reply, a step's input and output) are as long as whatever was stored — old data, or data from before the
// ingest bounds — so the rollout page shows a window of each: LIST_CHUNK items, TEXT_CHUNK characters, the rest
// behind a "show more" link whose search parameter (`steps_from=200`) moves the window. Whatever is stored, the page
// renders a bounded amount. Pure.

/** Items of one list shown at once. */
export const LIST_CHUNK = 100;
/** Characters of one text shown at once (the final reply; each string inside a step or the case, clipped). */
export const TEXT_CHUNK = 20_000;

/** The search parameters that move the windows of the rollout page, one per list or text. */
export const WINDOW_PARAMS = ["guardrails_from", "reasons_from", "claims_from", "steps_from", "reply_from"] as const;
export type WindowParam = (typeof WINDOW_PARAMS)[number];

/** Which part of a list or text is shown: [from, to) of total. */
export type Window = { from: number; to: number; total: number };

/** The window's start from its parameter: a whole number, else 0 (a bad value only shows the start). */
export function windowStart(raw: string | string[] | undefined): number {
  const v = Array.isArray(raw) ? raw[0] : raw;
  return v !== undefined && /^\d{1,9}$/.test(v) ? Number(v) : 0;
}

/** `size` items of `items` from `from` (moved back to the last chunk when past the end). */
export function windowOf<T>(items: readonly T[], from: number, size = LIST_CHUNK): { items: T[]; window: Window } {
  const window = span(items.length, from, size);
  return { items: items.slice(window.from, window.to), window };
}

function span(total: number, from: number, size: number): Window {
  const start = from < total ? from : Math.max(0, total - size);
  return { from: start, to: Math.min(total, start + size), total };
}

/** `size` characters of `text` from `from`. */
export function textWindow(text: string, from: number, size = TEXT_CHUNK): { text: string; window: Window } {
  const window = span(text.length, from, size);
  return { text: text.slice(window.from, window.to), window };
}

/**
 * A JSON value with every string longer than `max` cut to `max` characters and a note of what was left out, and
 * every array longer than LIST_CHUNK cut likewise: for the JSON the page prints whole (a step's input and output).
 */
export function clipJson(value: unknown, max = TEXT_CHUNK, depth = 0): unknown {
  if (typeof value === "string")
    return value.length > max
      ? `${value.slice(0, max)}… (${(value.length - max).toLocaleString("en-US")} more characters not shown)`
      : value;
  if (depth > 64 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const shown = value.slice(0, LIST_CHUNK).map((v) => clipJson(v, max, depth + 1));
    const more = value.length - shown.length;
    return more > 0 ? [...shown, `… (${more.toLocaleString("en-US")} more items not shown)`] : shown;
  }
  const entries = Object.entries(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries.slice(0, LIST_CHUNK)) out[k] = clipJson(v, max, depth + 1);
  if (entries.length > LIST_CHUNK) out["…"] = `${entries.length - LIST_CHUNK} more keys not shown`;
  return out;
}

/** The search params without the window parameters (the filter the user came from, for the list's links). */
export function withoutWindowParams(
  search: Record<string, string | string[] | undefined>,
): Record<string, string | string[] | undefined> {
  return Object.fromEntries(Object.entries(search).filter(([k]) => !(WINDOW_PARAMS as readonly string[]).includes(k)));
}
