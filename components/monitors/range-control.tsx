"use client";
import { useState } from "react";

/**
 * The shared step range as two numbers: what the brush sets, typed instead. `onApply` gets a valid range within the
 * run (ends swapped if reversed, clamped to the extent).
 */
export function RangeControl({
  range,
  extent,
  pending,
  onApply,
}: {
  range: { from: number; to: number };
  extent: { first: number; last: number };
  pending: boolean;
  onApply: (from: number, to: number) => void;
}) {
  const [from, setFrom] = useState(String(range.from));
  const [to, setTo] = useState(String(range.to));
  const zoomed = range.from !== extent.first || range.to !== extent.last;
  const clamp = (v: number) => Math.min(extent.last, Math.max(extent.first, v));
  return (
    <form
      className="flex flex-wrap items-end gap-2 text-[12px]"
      aria-label="Step range"
      onSubmit={(e) => {
        e.preventDefault();
        const a = Number(from);
        const b = Number(to);
        if (!Number.isFinite(a) || !Number.isFinite(b)) return;
        onApply(clamp(Math.min(a, b)), clamp(Math.max(a, b)));
      }}
    >
      <label className="flex flex-col">
        <span className="text-fg-muted">From step</span>
        <input
          className="w-24 rounded border border-border bg-bg px-1.5 py-0.5"
          inputMode="numeric"
          value={from}
          onChange={(e) => setFrom(e.target.value)}
        />
      </label>
      <label className="flex flex-col">
        <span className="text-fg-muted">To step</span>
        <input
          className="w-24 rounded border border-border bg-bg px-1.5 py-0.5"
          inputMode="numeric"
          value={to}
          onChange={(e) => setTo(e.target.value)}
        />
      </label>
      <button type="submit" className="rounded border border-border px-2 py-0.5 hover:bg-bg-muted" disabled={pending}>
        Zoom
      </button>
      {zoomed && (
        <button
          type="button"
          className="rounded border border-border px-2 py-0.5 hover:bg-bg-muted"
          disabled={pending}
          onClick={() => {
            setFrom(String(extent.first));
            setTo(String(extent.last));
            onApply(extent.first, extent.last);
          }}
        >
          Whole run
        </button>
      )}
      <span className="text-fg-muted" aria-live="polite">
        {pending
          ? "Loading…"
          : zoomed
            ? `Showing steps ${range.from.toLocaleString("en-US")}–${range.to.toLocaleString("en-US")} of ${extent.first.toLocaleString("en-US")}–${extent.last.toLocaleString("en-US")}`
            : "Whole run"}
      </span>
    </form>
  );
}
