import { JsonInline } from "@/components/trajectory/json-inline.tsx";

export type Reason = {
  dimension?: string;
  guardrail?: string;
  code: string;
  tool?: string;
  field?: string;
  pointer?: string;
  expected?: unknown;
  actual?: unknown;
  message?: string;
};

/** Structured reasons: code, where (tool, field, pointer), expected against actual, and the message. */
export function ReasonList({ reasons }: { reasons: Reason[] }) {
  if (!reasons.length) return null;
  return (
    <ul className="space-y-1">
      {reasons.map((r, i) => (
        <li key={i} className="rounded bg-bg-subtle px-2 py-1 text-[12px]">
          <span className="font-mono font-medium">{r.code}</span>
          {(r.tool || r.field || r.pointer) && (
            <span className="ml-2 font-mono text-fg-muted">
              {[r.tool, r.field, r.pointer].filter(Boolean).join(" · ")}
            </span>
          )}
          {("expected" in r || "actual" in r) && (
            <span className="ml-2">
              expected <JsonInline value={r.expected} /> · actual <JsonInline value={r.actual} />
            </span>
          )}
          {r.message && <div className="text-fg-muted">{r.message}</div>}
        </li>
      ))}
    </ul>
  );
}
