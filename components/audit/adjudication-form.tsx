"use client";

import { useActionState, useEffect, useRef, useState } from "react";
import { cn } from "@/components/ui/cn.ts";
import { inputClass, Options } from "@/components/ui/field.tsx";
import { adjudicateAction } from "@/lib/actions/audit.ts";
import { CAUSE_LABELS, DISAGREEMENT_CAUSES } from "@/lib/agreement/causes.ts";
import type { FormState } from "@/lib/audit/schema.ts";
import { adjudicatePairAction } from "@/lib/actions/pairwise-adjudication.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

/**
 * The lead's verdict: cause (keys 1–5), the guardrail concerned (optional) and a note; ctrl+enter records it.
 * A verdict on an item that already has one supersedes it (both stay on record). `kind` "pair": the verdict on a
 * pair's inversion, which reopens the pair's side-by-side view instead of the next ticket dispute.
 */
export function AdjudicationForm({
  itemId,
  guardrail,
  revising,
  kind = "ticket",
}: {
  itemId: string;
  guardrail: string | null;
  revising: boolean;
  kind?: "ticket" | "pair";
}) {
  const [state, action, pending] = useActionState<FormState, FormData>(
    kind === "pair" ? adjudicatePairAction : adjudicateAction,
    {},
  );
  const [cause, setCause] = useState<string>("");
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    form.current?.setAttribute("data-ready", "true");
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
        e.preventDefault();
        form.current?.requestSubmit();
        return;
      }
      const t = e.target as HTMLElement;
      if (["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName) || e.ctrlKey || e.metaKey || e.altKey) return;
      const i = "12345".indexOf(e.key);
      if (i >= 0 && e.key.length === 1) {
        e.preventDefault();
        setCause(DISAGREEMENT_CAUSES[i]);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  const errors = state.fieldErrors ?? {};
  return (
    <form ref={form} action={action} aria-label="Verdict" className="space-y-2 p-3">
      <input type="hidden" name="itemId" value={itemId} />
      <fieldset>
        <legend className="mb-1 text-[12px] font-medium">Cause</legend>
        <div className="flex flex-wrap gap-1">
          {DISAGREEMENT_CAUSES.map((c, i) => (
            <label
              key={c}
              className={cn(
                "flex cursor-pointer items-center gap-1 rounded border px-2 py-1 text-[12px]",
                cause === c ? "border-accent bg-accent/10" : "border-border",
              )}
            >
              <input
                type="radio"
                name="cause"
                value={c}
                checked={cause === c}
                onChange={() => setCause(c)}
                className="sr-only"
              />
              <kbd className="rounded border border-border px-1 font-mono text-[10px] text-fg-muted">{i + 1}</kbd>
              {CAUSE_LABELS[c]}
            </label>
          ))}
        </div>
        {errors.cause && <p className="mt-1 text-[12px] text-bad">{errors.cause.join(" ")}</p>}
      </fieldset>
      <div className="flex flex-wrap gap-3">
        <label className="flex flex-col gap-0.5 text-[12px] font-medium">
          Guardrail concerned
          <select name="guardrail" defaultValue={guardrail ?? ""} className={cn(inputClass, "w-56")}>
            <option value="">none</option>
            <Options values={GUARDRAIL_CODES} />
          </select>
        </label>
        <label className="flex min-w-64 flex-1 flex-col gap-0.5 text-[12px] font-medium">
          Note
          <textarea name="note" rows={2} className={inputClass} placeholder="What was wrong, and what should change" />
        </label>
      </div>
      <div className="flex items-center gap-2">
        <button
          type="submit"
          disabled={pending}
          className="rounded bg-accent px-3 py-1 text-[13px] font-medium text-accent-fg disabled:opacity-60"
        >
          {revising ? "Record a revised verdict" : "Record verdict"}{" "}
          <kbd className="ml-1 text-[11px] opacity-80">ctrl+enter</kbd>
        </button>
        {state.message && (
          <span role="alert" className="text-[12px] text-bad">
            {state.message}
          </span>
        )}
      </div>
    </form>
  );
}
