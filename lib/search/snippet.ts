import type { SearchField, SearchQuery } from "@/lib/search/parse.ts";

// Snippets of a search's matches: the text around each match, split into parts so a page renders the match in a
// <mark> and the rest as text (never as HTML). Pure.

/** A rollout's searchable texts by field, as rollout_search holds them (SearchTextRow). */
export type SearchTexts = { reply: string; tools: string; args: string; results: string; ticket: string };

/** A piece of a snippet: `mark` when it is (a case-insensitive occurrence of) a search term. */
export type SnippetPart = { text: string; mark: boolean };
/** Where a match is and the text around it; `before`/`after` say the field's text goes on past the snippet. */
export type Snippet = { field: SearchField; parts: SnippetPart[]; before: boolean; after: boolean };

const TEXT_OF: Record<SearchField, keyof SearchTexts> = {
  reply: "reply",
  tool: "tools",
  arg: "args",
  result: "results",
  ticket: "ticket",
};
const ORDER: SearchField[] = ["reply", "tool", "arg", "result", "ticket"];

/** Characters of context on each side of a match. */
export const SNIPPET_CONTEXT = 48;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A case-insensitive pattern matching any of the texts literally (longest first), or null for none. */
export function termsPattern(texts: string[]): RegExp | null {
  const distinct = [...new Set(texts.filter(Boolean))].sort((a, b) => b.length - a.length);
  return distinct.length ? new RegExp(distinct.map(escapeRegExp).join("|"), "giu") : null;
}

/** Splits a text into marked (matching `pattern`) and unmarked parts, in order; no match gives one unmarked part. */
export function markParts(text: string, pattern: RegExp | null): SnippetPart[] {
  if (!pattern || !text) return text ? [{ text, mark: false }] : [];
  const parts: SnippetPart[] = [];
  let at = 0;
  for (const m of text.matchAll(new RegExp(pattern.source, "giu"))) {
    if (!m[0]) continue;
    if (m.index > at) parts.push({ text: text.slice(at, m.index), mark: false });
    parts.push({ text: m[0], mark: true });
    at = m.index + m[0].length;
  }
  if (at < text.length) parts.push({ text: text.slice(at), mark: false });
  return parts;
}

/** The positive terms that may match in a field: those of that field and those of no field. */
function termsFor(query: SearchQuery, field: SearchField): string[] {
  return query.terms.filter((t) => !t.exclude && (t.field === null || t.field === field)).map((t) => t.text);
}

/**
 * At most `limit` snippets of a rollout's texts: per field (reply first), the window around its first match, with
 * every term inside the window marked. A field without a match gives none.
 */
export function searchSnippets(query: SearchQuery, texts: SearchTexts, limit = 2): Snippet[] {
  const out: Snippet[] = [];
  for (const field of ORDER) {
    if (out.length >= limit) break;
    const pattern = termsPattern(termsFor(query, field));
    const text = texts[TEXT_OF[field]];
    if (!pattern || !text) continue;
    const first = new RegExp(pattern.source, "iu").exec(text);
    if (!first) continue;
    const from = Math.max(0, first.index - SNIPPET_CONTEXT);
    const to = Math.min(text.length, first.index + first[0].length + SNIPPET_CONTEXT);
    const window = text.slice(from, to).replace(/\s+/g, " ");
    out.push({ field, parts: markParts(window, pattern), before: from > 0, after: to < text.length });
  }
  return out;
}

/** The terms to mark in each field of a rollout shown under a search (the rollout page), or null for no search. */
export function fieldMarks(query: SearchQuery | null): Record<SearchField, string[]> | null {
  if (!query) return null;
  return Object.fromEntries(ORDER.map((f) => [f, termsFor(query, f)])) as Record<SearchField, string[]>;
}
