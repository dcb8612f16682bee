import { Badge } from "@/components/ui/badge.tsx";
import { MarkTerms } from "@/components/search/snippet-text.tsx";
import type { SearchField } from "@/lib/search/parse.ts";

type Step = { type: string; name: string; input?: unknown; output?: unknown; status?: string };
type Write = { tool: string; args?: unknown; step?: number; at?: string };

function text(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v, null, 2);
}

/** Whether a text holds one of the terms (a tool input with a match is shown open). */
function hasMark(value: string, terms?: string[]): boolean {
  const lower = value.toLowerCase();
  return !!terms?.some((t) => lower.includes(t.toLowerCase()));
}

/**
 * The trajectory step by step: LLM turns and tool calls with input, output (each labelled) and status, a badge for the tool's
 * registry kind, and where each sandbox write happened. A write call the sandbox did not record is marked: only
 * the sandbox decides whether a write happened.
 */
export function StepTimeline({
  steps,
  kinds,
  writes,
  offset = 0,
  total = steps.length,
  marks,
}: {
  /** The steps shown: a window of `total` from `offset` (lib/ledger/page-window.ts). */
  steps: Step[];
  kinds: Record<string, string>;
  writes: Write[];
  offset?: number;
  total?: number;
  /** A search's terms to mark, by field (the browser's search the page was opened from). */
  marks?: Record<SearchField, string[]> | null;
}) {
  const writesAt = new Map<number, Write[]>();
  const unplaced: Write[] = [];
  const last = offset + steps.length >= total;
  for (const w of writes) {
    // Position per verifier.md: the write's step when given, else the first successful call of that tool (looked
    // for in the steps shown). A write placed outside the window is shown with its own window.
    const pos =
      typeof w.step === "number"
        ? w.step - offset
        : steps.findIndex((s) => s.type === "tool" && s.name === w.tool && s.status === "success");
    if (pos >= 0 && pos < steps.length) writesAt.set(pos, [...(writesAt.get(pos) ?? []), w]);
    else if (last && (typeof w.step !== "number" || w.step >= total || w.step < 0)) unplaced.push(w);
  }
  return (
    <ol className="divide-y divide-border" data-testid="timeline">
      {steps.map((s, i) => {
        const kind = s.type === "tool" ? (kinds[s.name] ?? "not in registry") : "llm";
        const recorded = writesAt.get(i) ?? [];
        const phantom = kind === "write" && recorded.length === 0;
        return (
          <li key={offset + i} className="px-3 py-2">
            <div className="flex flex-wrap items-center gap-2">
              <span className="num w-6 text-fg-subtle">#{offset + i}</span>
              <Badge
                tone={
                  kind === "write"
                    ? "warn"
                    : kind === "handoff"
                      ? "accent"
                      : kind === "not in registry"
                        ? "bad"
                        : "neutral"
                }
              >
                {kind}
              </Badge>
              <span className="font-mono text-[12px] font-medium">
                <MarkTerms text={s.name} terms={s.type === "tool" ? marks?.tool : undefined} />
              </span>
              {s.status && <Badge tone={s.status === "success" ? "good" : "bad"}>{s.status}</Badge>}
              {recorded.map((w, j) => (
                <Badge key={j} tone="good" title={w.at ? `recorded at ${w.at}` : undefined}>
                  sandbox write: {w.tool}
                </Badge>
              ))}
              {phantom && <Badge tone="bad">no sandbox write recorded</Badge>}
            </div>
            {s.input !== undefined && (
              <details className="mt-1" data-section="input" open={hasMark(text(s.input), marks?.arg)}>
                <summary className="cursor-pointer text-[11px] text-fg-muted">input</summary>
                <pre className="overflow-x-auto rounded bg-bg-subtle p-2 font-mono text-[11px]">
                  <MarkTerms text={text(s.input)} terms={marks?.arg} />
                </pre>
              </details>
            )}
            {s.output !== undefined && (
              <figure className="mt-1" data-section="output">
                <figcaption className="text-[11px] text-fg-muted">
                  {s.type === "tool" ? `output of ${s.name}` : "model output"}
                </figcaption>
                <pre className="max-h-40 overflow-auto whitespace-pre-wrap rounded bg-bg-subtle p-2 font-mono text-[11px]">
                  <MarkTerms text={text(s.output)} terms={s.type === "tool" ? marks?.result : undefined} />
                </pre>
              </figure>
            )}
          </li>
        );
      })}
      {unplaced.map((w, j) => (
        <li key={`u${j}`} className="px-3 py-2">
          <Badge tone="good">sandbox write after the last step: {w.tool}</Badge>
        </li>
      ))}
    </ol>
  );
}
