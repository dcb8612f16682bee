"use client";

import { useActionState, useMemo, useState } from "react";
import { DryRunTable } from "@/components/cases/dry-run-table.tsx";
import { CasePanel } from "@/components/trajectory/case-panel.tsx";
import { Card } from "@/components/ui/card.tsx";
import { FormMessage, inputClass } from "@/components/ui/field.tsx";
import { applyDraftAction, tryDraftAction, type ApplyState, type TryState } from "@/lib/actions/cases.ts";
import { MAX_SPEC_CHARS } from "@/lib/cases/schema.ts";
import { listSpecPointers } from "@/lib/ledger/spec-pointers.ts";
import { verifierSpecSchema, zodIssues, type Issue } from "@/lib/verifier/schema.ts";

/** The draft checked as it is typed, by the verifier's own spec schema: errors with their path in the case. */
function validate(text: string): { spec: unknown; issues: Issue[] } {
  if (text.length > MAX_SPEC_CHARS)
    return {
      spec: null,
      issues: [
        {
          path: "verifier_spec",
          message: `at most ${MAX_SPEC_CHARS.toLocaleString("en-US")} characters (this draft has ${text.length.toLocaleString("en-US")})`,
        },
      ],
    };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { spec: null, issues: [{ path: "verifier_spec", message: `invalid JSON: ${(err as Error).message}` }] };
  }
  const r = verifierSpecSchema.safeParse(json);
  if (r.success) return { spec: json, issues: [] };
  return {
    spec: null,
    issues: zodIssues(r.error).map((i) => ({ ...i, path: i.path ? `verifier_spec.${i.path}` : "verifier_spec" })),
  };
}

function Issues({ issues, label }: { issues: Issue[]; label: string }) {
  if (!issues.length) return null;
  return (
    <ul aria-label={label} className="mt-1 space-y-0.5 text-[12px] text-bad">
      {issues.map((i, n) => (
        <li key={n}>
          <span className="font-mono">{i.path || "(the whole spec)"}</span>: {i.message}
        </li>
      ))}
    </ul>
  );
}

export function SpecWorkbench({
  ticketId,
  ticket,
  snapshot,
  spec,
  runs,
  selectedRollout,
  adjudication,
}: {
  ticketId: string;
  ticket: unknown;
  snapshot: unknown;
  spec: unknown;
  runs: { runId: string; rollouts: number }[];
  selectedRollout: string | null;
  adjudication: string | null;
}) {
  const [text, setText] = useState(() => JSON.stringify(spec, null, 2));
  const [runId, setRunId] = useState("");
  const checked = useMemo(() => validate(text), [text]);
  const pointers = useMemo(() => (checked.spec ? listSpecPointers(checked.spec, snapshot) : []), [checked, snapshot]);
  const [tried, tryAction, trying] = useActionState<TryState, FormData>(tryDraftAction, {});
  const [applied, applyAction, applying] = useActionState<ApplyState, FormData>(applyDraftAction, {});
  const hidden = (
    <>
      <input type="hidden" name="ticketId" value={ticketId} />
      <input type="hidden" name="spec" value={text} />
      <input type="hidden" name="runId" value={runId} />
      <input type="hidden" name="rollout" value={selectedRollout ?? ""} />
      <input type="hidden" name="adjudication" value={adjudication ?? ""} />
    </>
  );
  const valid = checked.issues.length === 0;
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <Card title="Spec (draft)">
        <div className="p-3">
          <label htmlFor="spec-draft" className="mb-1 block text-[12px] font-medium">
            verifier_spec{" "}
            <span className="font-normal text-fg-muted">
              (at most {MAX_SPEC_CHARS.toLocaleString("en-US")} characters)
            </span>
          </label>
          <textarea
            id="spec-draft"
            rows={22}
            value={text}
            onChange={(e) => setText(e.target.value)}
            spellCheck={false}
            className={`${inputClass} font-mono text-[12px]`}
            aria-invalid={!valid}
            aria-describedby="spec-issues"
          />
          <div id="spec-issues" role="status">
            {valid ? (
              <p className="mt-1 text-[12px] text-good">Valid spec.</p>
            ) : (
              <Issues issues={checked.issues} label="Spec errors" />
            )}
          </div>
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <label htmlFor="spec-run" className="text-[12px] font-medium">
              Rollouts of
            </label>
            <select
              id="spec-run"
              value={runId}
              onChange={(e) => setRunId(e.target.value)}
              className="rounded border border-border bg-bg px-2 py-1 text-[13px]"
            >
              <option value="">every run</option>
              {runs.map((r) => (
                <option key={r.runId} value={r.runId}>
                  {r.runId} ({r.rollouts})
                </option>
              ))}
            </select>
          </div>
          <form action={tryAction} className="mt-3 flex items-center gap-2" aria-label="Try the draft">
            {hidden}
            <button
              type="submit"
              disabled={!valid || trying}
              className="rounded border border-border px-3 py-1 font-medium disabled:opacity-60"
            >
              {trying ? "Trying…" : "Try it"}
            </button>
            <FormMessage state={tried} />
          </form>
          <Issues issues={tried.issues ?? []} label="Dry-run errors" />
          <form action={applyAction} className="mt-3 grid gap-2" aria-label="Apply the draft">
            {hidden}
            <label htmlFor="spec-reason" className="text-[12px] font-medium">
              Reason for this version
            </label>
            <input id="spec-reason" name="reason" className={inputClass} placeholder="why the spec was wrong" />
            <div className="flex items-center gap-2">
              <button
                type="submit"
                disabled={!valid || applying}
                className="rounded bg-accent px-3 py-1 font-medium text-accent-fg disabled:opacity-60"
              >
                {applying ? "Applying…" : "Apply: save and re-score"}
              </button>
              <FormMessage state={applied} />
            </div>
            <Issues issues={applied.issues ?? []} label="Apply errors" />
          </form>
        </div>
      </Card>
      <Card title="Case">
        <CasePanel ticket={ticket} snapshot={snapshot} spec={checked.spec} pointers={pointers} />
      </Card>
      {tried.ok && tried.rows && (
        <Card title="Dry run: per rollout" className="lg:col-span-2">
          <DryRunTable rows={tried.rows} selected={selectedRollout} />
          {tried.truncated && (
            <p className="p-2 text-[12px] text-fg-subtle">
              Showing {tried.rows.length} of {tried.totals?.rollouts} rollouts.
            </p>
          )}
        </Card>
      )}
    </div>
  );
}
