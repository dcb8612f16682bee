"use client";

import { useEffect, useRef } from "react";
import { FormRow, RewardPanel, SECTION_TITLES } from "@/components/review/form-parts.tsx";
import { rowId, KEYS, LEGEND } from "@/components/review/form-model.ts";
import { KeyHelp } from "@/components/review/key-help.tsx";
import { HELP_KEYS, READING_KEYS, READING_LEGEND, type KeyGroup } from "@/components/review/reading-keys.ts";
import {
  useAnnotation,
  useAnnotationKeys,
  type Annotation,
  type AnnotationFormProps,
} from "@/components/review/use-annotation.ts";

const KEY_GROUPS: KeyGroup[] = [
  { title: "Scoring", keys: KEYS },
  { title: "Reading the rollout", keys: READING_KEYS },
  { title: "This list", keys: HELP_KEYS },
];

/**
 * The blind annotation form, keyboard first: a cursor walks the rows (five sub-scores, eleven guardrail flags, the
 * claims, the note); every action has a key, listed on screen. The human reward is recomputed live with the
 * batch's weights and caps; the server recomputes it on submit.
 */
export function AnnotationForm(p: AnnotationFormProps) {
  const f = useAnnotation(p);
  useAnnotationKeys(f);
  const root = useRef<HTMLDivElement>(null);
  // Marks the form as hydrated (its key handler is listening): tests and impatient fingers wait for it.
  useEffect(() => root.current?.setAttribute("data-ready", "true"), []);
  const { rows, s, cursor } = f;
  const st = f.autosave.status;
  return (
    <div ref={root} className="flex flex-col gap-3 xl:h-full" data-testid="annotation-form">
      <RewardPanel reward={f.reward} />
      {st.state === "lost" && (
        <p role="alert" className="rounded border border-bad/40 bg-bad-bg px-2 py-1 text-[12px] text-bad">
          {st.message}{" "}
          <a className="underline" href="/queue">
            Back to the queue
          </a>
        </p>
      )}
      <div className="rounded-md border border-border xl:min-h-0 xl:flex-1 xl:overflow-y-auto" data-testid="form-rows">
        {rows.map((r, i) => (
          <FormRow
            key={rowId(r)}
            row={r}
            heading={i === 0 || rows[i - 1].kind !== r.kind ? SECTION_TITLES[r.kind] : null}
            active={i === cursor}
            state={s}
            config={p.config}
            mention={r.kind === "mention" ? p.mentions.find((m) => m.key === r.key) : undefined}
            onPick={() => f.setCursor(i)}
            onScore={(v) => f.score(i, v)}
            onToggle={() => f.act(i)}
            onAnswer={(a) => f.answerRow(i, a)}
            onText={(v) => f.setText(r, v)}
            inputRef={(el) => {
              const key = r.kind === "note" ? "note" : r.kind === "mention" ? `mention-${r.key}` : null;
              if (key && el) f.inputs.current.set(key, el);
            }}
          />
        ))}
      </div>
      {f.error && (
        <p role="alert" className="text-[12px] text-bad">
          {f.error}
        </p>
      )}
      <SubmitBar f={f} />
      <KeyLegend />
    </div>
  );
}

/** Submit and skip, with the draft's save state and the lease. */
function SubmitBar({ f }: { f: Annotation }) {
  const st = f.autosave.status;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button
        type="button"
        onClick={f.submit}
        disabled={f.pending}
        className="rounded bg-accent px-3 py-1 text-[13px] font-medium text-accent-fg disabled:opacity-60"
      >
        Submit <kbd className="ml-1 text-[11px] opacity-80">ctrl+enter</kbd>
      </button>
      <button
        type="button"
        onClick={f.skip}
        disabled={f.pending}
        className="rounded border border-border px-3 py-1 text-[13px]"
      >
        Skip <kbd className="ml-1 text-[11px] text-fg-muted">s</kbd>
      </button>
      <span className="text-[11px] text-fg-muted" aria-live="polite" data-testid="save-status">
        {st.state === "saving"
          ? "saving draft…"
          : st.state === "saved"
            ? `draft saved ${st.at?.toISOString().slice(11, 19)} UTC`
            : st.state === "error"
              ? st.message
              : ""}
        {st.leaseUntil && st.state !== "lost"
          ? ` · leased to you until ${st.leaseUntil.toISOString().slice(11, 16)} UTC`
          : ""}
      </span>
    </div>
  );
}

/** The keys on screen: the form's and the reading pane's, and the full list behind "?". */
function KeyLegend() {
  return (
    <section
      aria-label="Keys"
      className="shrink-0 rounded-md border border-border bg-bg-subtle px-3 py-1.5 text-[12px]"
    >
      <ul className="flex flex-wrap items-center gap-x-3 gap-y-1">
        {[...LEGEND, ...READING_LEGEND].map(([k, what]) => (
          <li key={k} className="flex items-center gap-1">
            <kbd className="rounded border border-border bg-bg px-1 font-mono text-[11px]">{k}</kbd>
            <span className="text-fg-muted">{what}</span>
          </li>
        ))}
        <li className="ml-auto">
          <KeyHelp groups={KEY_GROUPS} />
        </li>
      </ul>
    </section>
  );
}
