"use client";
// The reward function editor: the version document as JSON, checked as it is typed (a pattern that does not compile
// names its character, Python its line), saved as the next version with a reason, and tried on one rollout before or
// after saving. Everything the user wrote is shown as text, never as HTML.
import { useRouter } from "next/navigation";
import { useEffect, useState, useTransition } from "react";
import { inputClass } from "@/components/ui/field.tsx";
import {
  saveRewardVersion,
  tryRewardDraft,
  validateRewardDraft,
  type TryState,
  type ValidationState,
} from "@/lib/actions/rewards.ts";

export type TemplateOption = { id: string; title: string; text: string };

export function RewardEditor({
  name: initialName,
  initialText,
  templates,
  exampleRollout,
}: {
  name: string | null;
  initialText: string;
  templates: TemplateOption[];
  exampleRollout: string | null;
}) {
  const [name, setName] = useState(initialName ?? "");
  const [text, setText] = useState(initialText);
  const [reason, setReason] = useState("");
  const [check, setCheck] = useState<ValidationState | null>(null);
  const [saved, setSaved] = useState<{ ok?: boolean; message?: string } | null>(null);
  const [rollout, setRollout] = useState(exampleRollout ?? "");
  const [tried, setTried] = useState<TryState | null>(null);
  const [pending, start] = useTransition();
  const router = useRouter();

  useEffect(() => {
    const t = setTimeout(() => void validateRewardDraft(text).then(setCheck), 300);
    return () => clearTimeout(t);
  }, [text]);

  return (
    <div className="grid gap-3 p-3">
      {initialName === null && (
        <div className="grid gap-2 md:grid-cols-2">
          <label className="text-[12px] font-medium">
            Name
            <input
              className={inputClass}
              value={name}
              onChange={(e) => setName(e.target.value)}
              aria-label="Function name"
            />
          </label>
          <label className="text-[12px] font-medium">
            Start from a template
            <select
              className={inputClass}
              aria-label="Template"
              defaultValue=""
              onChange={(e) => {
                const t = templates.find((x) => x.id === e.target.value);
                if (t) setText(t.text);
              }}
            >
              <option value="">—</option>
              {templates.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.title}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
      <label className="text-[12px] font-medium">
        Document
        <textarea
          className={`${inputClass} h-72 font-mono text-[12px]`}
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-label="Reward function document"
          aria-invalid={check ? !check.ok : undefined}
          aria-describedby="reward-issues"
          spellCheck={false}
        />
      </label>
      <div id="reward-issues" aria-live="polite" className="text-[12px]">
        {check === null ? null : check.ok ? (
          <span className="text-good" data-testid="reward-valid">
            Valid · {check.hash?.slice(0, 12)}
          </span>
        ) : (
          <ul className="text-bad" data-testid="reward-issues">
            {check.issues.map((i, k) => (
              <li key={k}>
                {i.path ? <code>{i.path}</code> : null} {i.message}
              </li>
            ))}
          </ul>
        )}
        {check?.warning && <p className="text-warn">{check.warning}</p>}
      </div>
      <div className="flex flex-wrap items-end gap-2">
        <label className="grow text-[12px] font-medium">
          Reason for this version
          <input
            className={inputClass}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            aria-label="Reason"
          />
        </label>
        <button
          type="button"
          className="rounded bg-accent px-3 py-1 text-[13px] text-white disabled:opacity-50"
          disabled={pending || !check?.ok || !name}
          onClick={() =>
            start(async () => {
              const r = await saveRewardVersion(name, text, reason);
              setSaved(r);
              if (r.ok && initialName === null && r.name) router.push(`/rewards/${encodeURIComponent(r.name)}`);
            })
          }
        >
          Save as next version
        </button>
        {saved?.message && (
          <span role={saved.ok ? "status" : "alert"} className={saved.ok ? "text-good" : "text-bad"}>
            {saved.message}
          </span>
        )}
      </div>
      <div className="flex flex-wrap items-end gap-2 border-t border-border pt-3">
        <label className="grow text-[12px] font-medium">
          Try it on rollout (trajectory id)
          <input
            className={inputClass}
            value={rollout}
            onChange={(e) => setRollout(e.target.value)}
            aria-label="Rollout to try"
          />
        </label>
        <button
          type="button"
          className="rounded border border-border px-3 py-1 text-[13px] disabled:opacity-50"
          disabled={pending || !check?.ok}
          onClick={() => start(async () => setTried(await tryRewardDraft(text, rollout)))}
        >
          Try it
        </button>
      </div>
      {tried && <TryResult state={tried} />}
    </div>
  );
}

function TryResult({ state }: { state: TryState }) {
  if (!state.ok)
    return (
      <p role="alert" className="text-bad">
        {state.error}
      </p>
    );
  const o = state.outcome;
  return (
    <div data-testid="try-result" className="text-[13px]">
      <p>
        <strong>{o.status}</strong>
        {o.reward !== null && <> · reward {o.reward.toFixed(4)}</>}
        {o.error && <span className="text-bad"> · {o.error}</span>} · run {state.runId}, step {state.step}
      </p>
      <ul className="mt-1 grid gap-2">
        {o.components.map((c, i) => (
          <li key={i} className="rounded border border-border p-2">
            <div>
              {c.name} × {c.weight}: {c.status === "ok" ? c.value : `${c.status} — ${c.error ?? ""}`}
              {c.detail?.simulated === true && (
                <span className="ml-2 rounded bg-warn/20 px-1 text-[11px]">simulated judge</span>
              )}
            </div>
            {Object.entries(c.detail ?? {}).map(([k, v]) => (
              <details key={k} open={k === "prompt" || k === "raw" || k === "stdout"}>
                <summary className="text-[12px] text-fg-subtle">{k}</summary>
                <pre className="whitespace-pre-wrap text-[12px]">
                  {typeof v === "string" ? v : JSON.stringify(v, null, 2)}
                </pre>
              </details>
            ))}
          </li>
        ))}
      </ul>
    </div>
  );
}
