"use client";
// The annotation form's state and its keys: the rows and the cursor walking them, the answers, the live human
// reward, the draft autosave, submit and skip. The form (annotation-form.tsx) only draws them.
import { useEffect, useMemo, useRef, useState, useTransition, type TransitionStartFunction } from "react";
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
  type Row,
} from "@/components/review/form-model.ts";
import { isTyping } from "@/components/review/reading-keys.ts";
import { useAutosave } from "@/components/review/use-autosave.ts";
import { skipItemAction, submitReviewAction } from "@/lib/actions/review.ts";
import { unansweredMessage } from "@/lib/review/claim-answers.ts";
import { partialHumanReward, SCORE_STEPS, type ScoringConfig } from "@/lib/review/human-reward.ts";
import type { DraftBody } from "@/lib/review/schema.ts";

/** What the page hands the form: the item, the batch's scoring config, the reply's claims, the saved draft. */
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

export type Annotation = ReturnType<typeof useAnnotation>;

/** The form's state and what each row and button does to it. */
export function useAnnotation(p: AnnotationFormProps) {
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

  const setText = (r: Row, v: string) =>
    setS((x) =>
      r.kind === "note"
        ? { ...x, note: v }
        : r.kind === "mention"
          ? { ...answer(x, r, "yes"), mentions: { ...x.mentions, [r.key]: { on: true, value: v } } }
          : x,
    );

  const { submit, skip } = useSubmission(p, { s, rows, body, autosave, setError, setCursor, startTransition });

  return {
    rows,
    s,
    cursor,
    setCursor,
    error,
    pending,
    autosave,
    reward,
    inputs,
    move,
    focusInput,
    act,
    answerRow,
    score,
    setText,
    submit,
    skip,
  };
}

type Submission = {
  s: FormState;
  rows: Row[];
  body: DraftBody;
  autosave: ReturnType<typeof useAutosave>;
  setError: (e: string | null) => void;
  setCursor: (i: number) => void;
  startTransition: TransitionStartFunction;
};

/**
 * Submit (refused, with the cursor on the first gap, while a sub-score or a claim is unanswered) and skip; either
 * stops the autosave, and a refused submission resumes it.
 */
function useSubmission(p: AnnotationFormProps, f: Submission) {
  const { s, rows, body, autosave, setError, setCursor, startTransition } = f;
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

  return { submit, skip };
}

/**
 * The form's keys, on the window: ctrl+enter submits from anywhere; in a text field only Escape (leave it) counts;
 * elsewhere digits score or answer the cursor row and letters move, toggle and jump between sections.
 */
export function useAnnotationKeys(f: Annotation) {
  // Re-registered on every render so the handler sees the current state; cheap.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
        e.preventDefault();
        if (!f.pending) f.submit();
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
      if (!answerKey(e, f)) rowKey(e, f);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
}

/** A digit on the cursor row: a sub-score step (0–4) or a claim's answer (1 yes, 0 no); the cursor moves on. */
function answerKey(e: KeyboardEvent, f: Annotation): boolean {
  const r = f.rows[f.cursor];
  const digit = "01234".indexOf(e.key);
  if (digit >= 0 && r.kind === "dim") {
    e.preventDefault();
    f.score(f.cursor, SCORE_STEPS[digit]);
    f.move(1);
    return true;
  }
  if ((e.key === "0" || e.key === "1") && isClaimRow(r)) {
    e.preventDefault();
    f.answerRow(f.cursor, e.key === "1" ? "yes" : "no");
    f.move(1);
    return true;
  }
  return false;
}

/** The cursor's keys: move, toggle or open the row, jump to a section, skip. */
function rowKey(e: KeyboardEvent, f: Annotation) {
  const { rows, cursor, s } = f;
  const r = rows[cursor];
  switch (e.key) {
    case "ArrowDown":
    case "j":
      e.preventDefault();
      f.move(1);
      break;
    case "ArrowUp":
    case "k":
      e.preventDefault();
      f.move(-1);
      break;
    case " ":
    case "x":
      e.preventDefault();
      f.act(cursor);
      break;
    case "Enter":
      e.preventDefault();
      if (r.kind === "mention") {
        if (!s.mentions[r.key]?.on) f.act(cursor);
        f.focusInput(`mention-${r.key}`);
      } else if (r.kind === "note") f.focusInput("note");
      else f.act(cursor);
      break;
    case "d":
      f.setCursor(firstRowOf(rows, "dim"));
      break;
    case "g":
      f.setCursor(firstRowOf(rows, "flag"));
      break;
    case "c":
      f.setCursor(firstRowOf(rows, "claims"));
      break;
    case "n":
      e.preventDefault();
      f.setCursor(firstRowOf(rows, "note"));
      f.focusInput("note");
      break;
    case "s":
      e.preventDefault();
      if (!f.pending) f.skip();
      break;
  }
}
