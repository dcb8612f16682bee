import { ReasonList, type Reason } from "@/components/trajectory/reason-list.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { fmtScore } from "@/components/ui/format.ts";

export type GuardrailHit = { code: string; cap: number; evidence?: unknown };

/** Triggered guardrails with their cap, the structured evidence that fired them, and their reasons. */
export function GuardrailsPanel({
  hits,
  deciding,
  reasons,
}: {
  hits: GuardrailHit[];
  deciding: string | null;
  reasons: Reason[];
}) {
  if (!hits.length) return <p className="px-3 py-2 text-fg-muted">No guardrail triggered.</p>;
  return (
    <div className="divide-y divide-border">
      {hits.map((g) => (
        <div key={g.code} className="px-3 py-2">
          <div className="flex items-center gap-2">
            <Badge tone={g.code === deciding ? "bad" : "warn"}>{g.code}</Badge>
            <span className="num text-[12px]">cap {fmtScore(g.cap)}</span>
            {g.code === deciding && <span className="text-[11px] font-medium text-bad">deciding</span>}
          </div>
          {g.evidence !== undefined && (
            <pre className="mt-1 overflow-x-auto rounded bg-bg-subtle p-2 font-mono text-[11px] leading-snug">
              {JSON.stringify(g.evidence, null, 2)}
            </pre>
          )}
          <div className="mt-1">
            <ReasonList reasons={reasons.filter((r) => r.guardrail === g.code)} />
          </div>
        </div>
      ))}
    </div>
  );
}
