"use client";

import { useEffect, useMemo, useRef, useState, useTransition } from "react";
import { FormRow, RewardPanel, SECTION_TITLES } from "@/components/review/form-parts.tsx";
import {
  answer,
  buildRows,
  draftFromState,
  firstRowOf,
  isClaimRow,
  missingDimensions,
  rowId,
  stateFromDraft,
  toggle,
  toggleAnswer,
  unansweredOf,
  type FormState,
  KEYS,
  LEGEND,
} from "@/components/review/form-model.ts";
import { KeyHelp } from "@/components/review/key-help.tsx";
import { HELP_KEYS, isTyping, READING_KEYS, READING_LEGEND, type KeyGroup } from "@/components/review/reading-keys.ts";
import { useAutosave } from "@/components/review/use-autosave.ts";
import { skipItemAction, submitReviewAction } from "@/lib/review/actions.ts";
import { unansweredMessage } from "@/lib/review/claim-answers.ts";
import { partialHumanReward, SCORE_STEPS, type ScoringConfig } from "@/lib/review/human-reward.ts";
import type { DraftBody } from "@/lib/review/schema.ts";

export type AnnotationFormProps = {
  itemId: string;
  batchId: number;
  config: ScoringConfig;
  writeTools: string[];
  mentions: { key: string; expected: unknown; hasExpected: boolean }[];
  forbidden: string[];
  draft: DraftBody;
  secondsSpent: number;
  leaseExpiresAt: string;
};

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
  const rows = useMemo(
    () =>
      buildRows(
        p.writeTools,
        p.mentions.map((m) => m.key),
        p.forbidden,
      ),
    [p.writeTools, p.mentions, p.forbidden],
  );
  const [s, setS] = useState<FormState>(() => stateFromDraft(p.draft));
  const [cursor, setCursor] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const body = useMemo(() => draftFromState(s), [s]);
  const autosave = useAutosave(p.itemId, body, p.secondsSpent, p.leaseExpiresAt);
  const reward = partialHumanReward(s.subscores, s.flags, p.config);
  const inputs = useRef(new Map<string, HTMLInputElement | HTMLTextAreaElement>());
  const root = useRef<HTMLDivElement>(null);
  // Marks the form as hydrated (its key handler is listening): tests and impatient fingers wait for it.
  useEffect(() => root.current?.setAttribute("data-ready", "true"), []);

  useEffect(() => {
    document.getElementById(rowId(rows[cursor]))?.scrollIntoView({ block: "nearest" });
  }, [cursor, rows]);

  const move = (d: number) => setCursor((c) => Math.max(0, Math.min(rows.length - 1, c + d)));
  const focusInput = (key: string) => {
    const el = inputs.current.get(key);
    if (el) {
      el.focus();
      if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) el.select?.();
    }
  };

  const act = (i: number) => {
    const r = rows[i];
    if (r.kind === "flag") setS((x) => ({ ...x, flags: toggle(x.flags, r.code) }));
    else if (isClaimRow(r)) setS((x) => toggleAnswer(x, r));
  };

  const answerRow = (i: number, a: "yes" | "no") => {
    const r = rows[i];
    if (isClaimRow(r)) setS((x) => answer(x, r, a));
  };

  const score = (i: number, v: number) => {
    const r = rows[i];
    if (r.kind !== "dim") return;
    setS((x) => ({ ...x, subscores: { ...x.subscores, [r.dim]: v } }));
  };

  const submit = () => {
    const missing = missingDimensions(s);
    if (missing.length) {
      setError(`Score all five sub-scores first (missing: ${missing.join(", ")}).`);
      setCursor(rows.findIndex((r) => r.kind === "dim" && r.dim === missing[0]));
      return;
    }
    const unanswered = unansweredOf(rows, s);
    if (unanswered.length) {
      setError(unansweredMessage(unanswered));
      setCursor(rows.findIndex((r) => rowId(r) === `${unanswered[0].kind}-${unanswered[0].name}`));
      return;
    }
    setError(null);
    autosave.stop();
    startTransition(async () => {
      const { denied, ...review } = body;
      const r = await submitReviewAction({
        itemId: p.itemId,
        body: review,
        denied,
        secondsSpent: autosave.seconds.current,
      });
      if (r && !r.ok) {
        setError(r.error);
        autosave.resume();
      }
    });
  };

  const skip = () => {
    autosave.stop();
    startTransition(async () => {
      const r = await skipItemAction({ itemId: p.itemId, batchId: p.batchId });
      if (r && !r.ok) setError(r.error);
    });
  };

  // Re-registered on every render so the handler sees the current state; cheap.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
        e.preventDefault();
        if (!pending) submit();
        return;
      }
      if (isTyping(e.target)) {
        if (e.key === "Escape") {
          e.preventDefault();
          (e.target as HTMLElement).blur();
        }
        return;
      }
      // shift+↑/↓ scroll the rollout pane (reading-pane.tsx), not the cursor
      if (e.altKey || e.ctrlKey || e.metaKey || (e.shiftKey && e.key.startsWith("Arrow"))) return;
      const r = rows[cursor];
      const digit = "01234".indexOf(e.key);
      if (digit >= 0 && r.kind === "dim") {
        e.preventDefault();
        score(cursor, SCORE_STEPS[digit]);
        move(1);
        return;
      }
      if ((e.key === "0" || e.key === "1") && isClaimRow(r)) {
        e.preventDefault();
        answerRow(cursor, e.key === "1" ? "yes" : "no");
        move(1);
        return;
      }
      switch (e.key) {
        case "ArrowDown":
        case "j":
          e.preventDefault();
          move(1);
          break;
        case "ArrowUp":
        case "k":
          e.preventDefault();
          move(-1);
          break;
        case " ":
        case "x":
          e.preventDefault();
          act(cursor);
          break;
        case "Enter":
          e.preventDefault();
          if (r.kind === "mention") {
            if (!s.mentions[r.key]?.on) act(cursor);
            focusInput(`mention-${r.key}`);
          } else if (r.kind === "note") focusInput("note");
          else act(cursor);
          break;
        case "d":
          setCursor(firstRowOf(rows, "dim"));
          break;
        case "g":
          setCursor(firstRowOf(rows, "flag"));
          break;
        case "c":
          setCursor(firstRowOf(rows, "claims"));
          break;
        case "n":
          e.preventDefault();
          setCursor(firstRowOf(rows, "note"));
          focusInput("note");
          break;
        case "s":
          e.preventDefault();
          if (!pending) skip();
          break;
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  const st = autosave.status;
  return (
    <div ref={root} className="flex flex-col gap-3 xl:h-full" data-testid="annotation-form">
      <RewardPanel reward={reward} />
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
            onPick={() => setCursor(i)}
            onScore={(v) => score(i, v)}
            onToggle={() => act(i)}
            onAnswer={(a) => answerRow(i, a)}
            onText={(v) =>
              setS((x) =>
                r.kind === "note"
                  ? { ...x, note: v }
                  : r.kind === "mention"
                    ? { ...answer(x, r, "yes"), mentions: { ...x.mentions, [r.key]: { on: true, value: v } } }
                    : x,
              )
            }
            inputRef={(el) => {
              const key = r.kind === "note" ? "note" : r.kind === "mention" ? `mention-${r.key}` : null;
              if (key && el) inputs.current.set(key, el);
            }}
          />
        ))}
      </div>
      {error && (
        <p role="alert" className="text-[12px] text-bad">
          {error}
        </p>
      )}
      <div className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          onClick={submit}
          disabled={pending}
          className="rounded bg-accent px-3 py-1 text-[13px] font-medium text-accent-fg disabled:opacity-60"
        >
          Submit <kbd className="ml-1 text-[11px] opacity-80">ctrl+enter</kbd>
        </button>
        <button
          type="button"
          onClick={skip}
          disabled={pending}
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
    </div>
  );
}
