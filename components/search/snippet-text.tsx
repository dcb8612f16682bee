import { markParts, termsPattern, type Snippet, type SnippetPart } from "@/lib/search/snippet.ts";

// A search's matches as text: each match in a <mark>, everything as React text nodes (never HTML).

const FIELD_LABEL: Record<Snippet["field"], string> = {
  reply: "reply",
  tool: "tool",
  arg: "arg",
  result: "result",
  ticket: "ticket",
};

/** Parts of a text with the matching ones marked. */
export function MarkedText({ parts }: { parts: SnippetPart[] }) {
  return (
    <>
      {parts.map((p, i) =>
        p.mark ? (
          <mark key={i} className="rounded-sm bg-warn-bg px-0.5 text-fg">
            {p.text}
          </mark>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </>
  );
}

/** A whole text with every occurrence of the terms marked (no terms: the text as it is). */
export function MarkTerms({ text, terms }: { text: string; terms?: string[] }) {
  if (!terms?.length) return <>{text}</>;
  return <MarkedText parts={markParts(text, termsPattern(terms))} />;
}

/** One snippet: its field, then the text around the match ("…" where the field goes on). */
export function SnippetText({ snippet }: { snippet: Snippet }) {
  return (
    <span data-snippet={snippet.field} className="text-[12px]">
      <span className="mr-1 text-[11px] uppercase tracking-wide text-fg-subtle">{FIELD_LABEL[snippet.field]}</span>
      {snippet.before && "…"}
      <MarkedText parts={snippet.parts} />
      {snippet.after && "…"}
    </span>
  );
}

/** The snippets of one row, on one line (the full text in its title). */
export function SnippetLine({ snippets }: { snippets: Snippet[] }) {
  if (!snippets.length) return <span className="text-fg-subtle">–</span>;
  const title = snippets.map((s) => `${s.field}: ${s.parts.map((p) => p.text).join("")}`).join("\n");
  return (
    <span className="inline-block max-w-[36rem] truncate align-middle" title={title}>
      {snippets.map((s, i) => (
        <span key={i} className={i > 0 ? "ml-3" : undefined}>
          <SnippetText snippet={s} />
        </span>
      ))}
    </span>
  );
}
