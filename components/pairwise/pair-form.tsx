"use client";

import { useEffect, useRef, useState, useTransition } from "react";
import { KeyHelp } from "@/components/review/key-help.tsx";
import { HELP_KEYS, isTyping, type KeyRow } from "@/components/review/reading-keys.ts";
import { submitPairAction } from "@/lib/actions/pairwise.ts";
import { PAIR_REASONS, type PairChoice, type PairReason } from "@/lib/pairwise/schema.ts";

export const PAIR_KEYS: KeyRow[] = [
  ["a", "A (left) is better"],
  ["b", "B (right) is better"],
  ["t", "a tie"],
  ["1–6", `reason: ${PAIR_REASONS.join(", ")} (again: none)`],
  ["enter", "submit"],
  ["n", "after submitting: the next pair"],
];

const CHOICE_LABEL: Record<PairChoice, string> = { left: "A is better", right: "B is better", tie: "Tie" };

/**
 * The judgement: A, B or tie, an optional reason and note. Keyboard-first: a / b / t choose, 1–6 pick the reason,
 * enter submits (ctrl+enter from the note), ? lists the keys. The seconds are counted from the page's opening.
 */
export function PairForm({ itemId }: { itemId: string }) {
  const [choice, setChoice] = useState<PairChoice | null>(null);
  const [reason, setReason] = useState<PairReason | null>(null);
  const [note, setNote] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const opened = useRef(0);
  const box = useRef<HTMLFormElement>(null);

  const submit = () => {
    if (!choice) {
      setError("Choose A, B or tie first.");
      return;
    }
    setError(null);
    startTransition(async () => {
      const r = await submitPairAction({
        itemId,
        body: { choice, reason, note },
        secondsSpent: (Date.now() - opened.current) / 1000,
      });
      if (r && !r.ok) setError(r.error);
    });
  };
  const submitRef = useRef(submit);
  useEffect(() => {
    submitRef.current = submit;
  });

  useEffect(() => {
    opened.current = Date.now();
    box.current?.setAttribute("data-ready", "true");
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        submitRef.current();
        return;
      }
      if (isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const pick = { a: "left", b: "right", t: "tie" }[e.key] as PairChoice | undefined;
      if (pick) {
        e.preventDefault();
        setChoice(pick);
      } else if (/^[1-6]$/.test(e.key)) {
        e.preventDefault();
        const r = PAIR_REASONS[Number(e.key) - 1];
        setReason((cur) => (cur === r ? null : r));
      } else if (e.key === "Enter") {
        e.preventDefault();
        submitRef.current();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <form
      ref={box}
      aria-label="Pairwise judgement"
      data-testid="pair-form"
      className="flex flex-wrap items-start gap-3 rounded border border-border p-3"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <fieldset className="flex gap-2">
        <legend className="mb-1 text-[12px] font-medium">Which is better?</legend>
        {(["left", "right", "tie"] as const).map((c) => (
          <button
            key={c}
            type="button"
            aria-pressed={choice === c}
            onClick={() => setChoice(c)}
            className={`rounded border px-3 py-1 text-[13px] ${choice === c ? "border-accent bg-accent text-accent-fg" : "border-border"}`}
          >
            {CHOICE_LABEL[c]}{" "}
            <kbd className="ml-1 text-[11px] opacity-80">{c === "left" ? "a" : c === "right" ? "b" : "t"}</kbd>
          </button>
        ))}
      </fieldset>
      <fieldset className="flex flex-wrap gap-1">
        <legend className="mb-1 text-[12px] font-medium">Reason (optional)</legend>
        {PAIR_REASONS.map((r, i) => (
          <button
            key={r}
            type="button"
            aria-pressed={reason === r}
            onClick={() => setReason((cur) => (cur === r ? null : r))}
            className={`rounded border px-2 py-0.5 text-[12px] ${reason === r ? "border-accent bg-bg-muted" : "border-border"}`}
          >
            <kbd className="mr-1 text-[11px] text-fg-muted">{i + 1}</kbd>
            {r}
          </button>
        ))}
      </fieldset>
      <label className="flex min-w-[16rem] flex-1 flex-col text-[12px] font-medium">
        Note (optional)
        <textarea
          name="note"
          value={note}
          maxLength={5000}
          onChange={(e) => setNote(e.target.value)}
          rows={2}
          className="rounded border border-border px-2 py-1 text-[13px] font-normal"
        />
      </label>
      <div className="flex flex-col items-end gap-1">
        <button
          type="submit"
          disabled={pending}
          className="rounded bg-accent px-3 py-1 text-[13px] font-medium text-accent-fg disabled:opacity-60"
        >
          Submit <kbd className="ml-1 text-[11px] opacity-80">enter</kbd>
        </button>
        <KeyHelp
          groups={[
            { title: "Pairwise judgement", keys: PAIR_KEYS },
            { title: "This list", keys: HELP_KEYS },
          ]}
        />
      </div>
      {error && (
        <p role="alert" className="w-full text-[12px] text-bad">
          {error}
        </p>
      )}
    </form>
  );
}
