"use client";

import type { ReactNode } from "react";
import { answerOf, rowId, type ClaimRow, type FormState, type Row } from "@/components/review/form-model.ts";
import { cn } from "@/components/ui/cn.ts";
import { fmtScore } from "@/components/ui/format.ts";
import { SCORE_STEPS, type HumanReward, type ScoringConfig } from "@/lib/review/human-reward.ts";
import type { GuardrailCode } from "@/lib/verifier/codes.ts";

export const SECTION_TITLES: Record<Row["kind"], string> = {
  dim: "Sub-scores",
  flag: "Guardrails",
  write: "Writes the reply claims",
  mention: "Mentions in the reply",
  forbidden: "Forbidden expressions in the reply",
  note: "Note",
};

function Kbd({ children }: { children: ReactNode }) {
  return <kbd className="rounded border border-border bg-bg px-1 font-mono text-[10px] text-fg-muted">{children}</kbd>;
}

/** The live human reward: raw weighted sum, the cap of the flagged guardrails, and the result. */
export function RewardPanel({ reward }: { reward: HumanReward | null }) {
  return (
    <div className="grid grid-cols-3 gap-2" data-testid="human-reward">
      <div className="rounded-md border border-border px-3 py-2">
        <div className="text-[11px] uppercase tracking-wide text-fg-subtle">Your reward</div>
        <div className="num text-lg font-semibold" data-testid="human-reward-value">
          {reward ? fmtScore(reward.reward) : "–"}
        </div>
        {!reward && <div className="text-[11px] text-fg-muted">score all five sub-scores</div>}
      </div>
      <div className="rounded-md border border-border px-3 py-2">
        <div className="text-[11px] uppercase tracking-wide text-fg-subtle">Raw (weighted)</div>
        <div className="num text-lg font-semibold">{reward ? fmtScore(reward.rawReward) : "–"}</div>
      </div>
      <div className="rounded-md border border-border px-3 py-2">
        <div className="text-[11px] uppercase tracking-wide text-fg-subtle">Cap</div>
        <div className="num text-lg font-semibold">
          {reward && reward.decidingGuardrail ? fmtScore(reward.cap) : "none"}
        </div>
        <div className="truncate text-[11px] text-fg-muted">{reward?.decidingGuardrail ?? ""}</div>
      </div>
    </div>
  );
}

type RowProps = {
  row: Row;
  /** Section title shown above the row (the first row of each kind). */
  heading: string | null;
  active: boolean;
  state: FormState;
  config: ScoringConfig;
  mention?: { key: string; expected: unknown; hasExpected: boolean };
  onPick: () => void;
  onScore: (v: number) => void;
  onToggle: () => void;
  onAnswer: (a: "yes" | "no") => void;
  onText: (v: string) => void;
  inputRef: (el: HTMLInputElement | HTMLTextAreaElement | null) => void;
};

function Check({
  checked,
  label,
  hint,
  onToggle,
}: {
  checked: boolean;
  label: ReactNode;
  hint?: ReactNode;
  onToggle: () => void;
}) {
  return (
    <div
      role="checkbox"
      aria-checked={checked}
      tabIndex={-1}
      onClick={onToggle}
      className="flex flex-1 cursor-pointer items-center gap-2"
    >
      <span
        className={cn(
          "inline-block h-3.5 w-3.5 rounded-sm border",
          checked ? "border-accent bg-accent" : "border-border",
        )}
        aria-hidden
      />
      <span className="font-mono text-[12px]">{label}</span>
      {hint && <span className="text-[11px] text-fg-muted">{hint}</span>}
    </div>
  );
}

/**
 * A claim's answer: yes (the reply claims it) or no, or "not answered" until one is picked — a claim left
 * unanswered blocks the submission rather than count as "no".
 */
function ClaimAnswer({
  row,
  state,
  label,
  hint,
  onAnswer,
}: {
  row: ClaimRow;
  state: FormState;
  label: ReactNode;
  hint?: ReactNode;
  onAnswer: (a: "yes" | "no") => void;
}) {
  const a = answerOf(state, row);
  return (
    <div className="flex flex-1 items-center gap-2" data-answer={a ?? "none"}>
      <span className="font-mono text-[12px]">{label}</span>
      {hint && <span className="text-[11px] text-fg-muted">{hint}</span>}
      {a === null && <span className="text-[11px] text-warn">not answered</span>}
      <div role="radiogroup" aria-label={`${rowId(row)}: claimed?`} className="ml-auto flex gap-1">
        {(["yes", "no"] as const).map((v) => (
          <button
            key={v}
            type="button"
            role="radio"
            aria-checked={a === v}
            tabIndex={-1}
            onClick={() => onAnswer(v)}
            className={cn(
              "w-10 rounded border px-1 text-[12px]",
              a === v ? "border-accent bg-accent text-accent-fg" : "border-border",
            )}
          >
            {v}
            <span className="sr-only"> (key {v === "yes" ? 1 : 0})</span>
          </button>
        ))}
      </div>
    </div>
  );
}

/** One row of the form; the cursor row is highlighted and shows its keys. */
export function FormRow({
  row,
  heading,
  active,
  state,
  config,
  mention,
  onPick,
  onScore,
  onToggle,
  onAnswer,
  onText,
  inputRef,
}: RowProps) {
  let content: ReactNode;
  let keys: ReactNode = null;
  switch (row.kind) {
    case "dim": {
      const v = state.subscores[row.dim];
      content = (
        <div className="flex flex-1 items-center gap-2">
          <span className="w-28 font-medium">{row.dim}</span>
          <span className="text-[11px] text-fg-subtle">×{config.weights[row.dim]}</span>
          <div role="radiogroup" aria-label={row.dim} className="ml-auto flex gap-1">
            {SCORE_STEPS.map((step, k) => (
              <button
                key={step}
                type="button"
                role="radio"
                aria-checked={v === step}
                tabIndex={-1}
                onClick={() => onScore(step)}
                className={cn(
                  "num w-11 rounded border px-1 text-[12px]",
                  v === step ? "border-accent bg-accent text-accent-fg" : "border-border",
                )}
              >
                {step}
                <span className="sr-only"> (key {k})</span>
              </button>
            ))}
          </div>
        </div>
      );
      keys = <Kbd>0–4</Kbd>;
      break;
    }
    case "flag": {
      const g = config.guardrails[row.code as GuardrailCode];
      content = (
        <Check
          checked={state.flags.includes(row.code)}
          label={row.code}
          hint={g.on ? `cap ${g.cap}` : "off in this config: recorded, caps nothing"}
          onToggle={onToggle}
        />
      );
      keys = <Kbd>space</Kbd>;
      break;
    }
    case "write":
      content = <ClaimAnswer row={row} state={state} label={row.tool} onAnswer={onAnswer} />;
      keys = <Kbd>1 0</Kbd>;
      break;
    case "forbidden":
      content = <ClaimAnswer row={row} state={state} label={row.code} onAnswer={onAnswer} />;
      keys = <Kbd>1 0</Kbd>;
      break;
    case "mention": {
      const m = state.mentions[row.key];
      const id = `mention-value-${row.key}`;
      content = (
        <div className="flex flex-1 items-center gap-2">
          <ClaimAnswer
            row={row}
            state={state}
            label={row.key}
            hint={mention?.hasExpected ? "with a value" : undefined}
            onAnswer={onAnswer}
          />
          <label htmlFor={id} className="sr-only">
            Value mentioned for {row.key}
          </label>
          <input
            id={id}
            ref={inputRef}
            value={m?.value ?? ""}
            onChange={(e) => onText(e.target.value)}
            placeholder={mention?.hasExpected ? "value in the reply" : "(no value needed)"}
            className="h-6 w-36 rounded border border-border bg-bg px-1 text-[12px]"
          />
        </div>
      );
      keys = (
        <>
          <Kbd>1 0</Kbd> <Kbd>enter</Kbd>
        </>
      );
      break;
    }
    case "note":
      content = (
        <div className="flex-1">
          <label htmlFor="review-note" className="sr-only">
            Note
          </label>
          <textarea
            id="review-note"
            ref={inputRef}
            value={state.note}
            onChange={(e) => onText(e.target.value)}
            rows={3}
            placeholder="Why you scored it so (optional)"
            className="w-full rounded border border-border bg-bg px-2 py-1 text-[12px]"
          />
        </div>
      );
      keys = <Kbd>n</Kbd>;
      break;
  }
  return (
    <>
      {heading && (
        <div className="border-t border-border bg-bg-subtle px-3 py-1 text-[11px] font-semibold uppercase tracking-wide text-fg-subtle first:border-t-0">
          {heading}
        </div>
      )}
      <div
        id={rowId(row)}
        data-row={row.kind}
        aria-current={active ? "true" : undefined}
        onMouseDown={onPick}
        className={cn(
          "flex items-center gap-2 px-3 py-1",
          active ? "bg-accent/10 outline outline-1 -outline-offset-1 outline-accent" : "",
        )}
      >
        {content}
        <span className={cn("w-20 text-right", active ? "" : "invisible")}>{keys}</span>
      </div>
    </>
  );
}
