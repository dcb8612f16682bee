"use client";

import { useEffect, useRef, useState } from "react";

// The browser's search box: a plain input named `q` in the filter form (Enter applies it with the other filters), a
// "/" shortcut to focus it, and a help popover listing the syntax with examples (Escape closes it).

const EXAMPLES: { query: string; finds: string }[] = [
  { query: "refund processed", finds: "every word appears (anywhere: reply, tool calls, ticket)" },
  { query: '"has been processed"', finds: "the exact phrase" },
  { query: "refund -sorry", finds: "refund, and not sorry" },
  { query: "reply:refund", finds: "in the final reply" },
  { query: "tool:finance.issue_refund arg:59.99", finds: "a call of the tool, and 59.99 in a call's arguments" },
  { query: 'result:"not found"', finds: "in a tool's output" },
  { query: "ticket:fryer", finds: "in the customer's message" },
  { query: "退款", finds: "Chinese: two characters are enough" },
  { query: 'reply:"已为您安排退款"', finds: "a Chinese phrase in the reply" },
  { query: "T-1001", finds: "a ticket or trajectory id, as before" },
];

export function SearchBox({ value, describedBy }: { value?: string; describedBy?: string }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [help, setHelp] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      const typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
      if (e.key === "/" && !typing && !e.metaKey && !e.ctrlKey && !e.altKey) {
        e.preventDefault();
        inputRef.current?.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  return (
    <div className="relative flex flex-col gap-0.5 text-[11px] text-fg-muted">
      <label htmlFor="browser-search">
        Search <kbd className="rounded border border-border px-1">/</kbd>
      </label>
      <span className="flex items-center gap-1">
        <input
          ref={inputRef}
          id="browser-search"
          name="q"
          type="search"
          defaultValue={value}
          maxLength={500}
          aria-describedby={describedBy}
          className="h-7 w-80 rounded border border-border bg-bg px-1.5 text-[12px]"
          placeholder='refund "has been processed" tool:finance.issue_refund 退款'
          onKeyDown={(e) => {
            if (e.key === "Escape") setHelp(false);
          }}
        />
        <button
          type="button"
          aria-expanded={help}
          aria-controls="search-help"
          onClick={() => setHelp(!help)}
          className="h-7 rounded border border-border px-2 text-[12px] hover:bg-bg-muted"
        >
          Syntax
        </button>
      </span>
      {help && <SearchHelp close={() => setHelp(false)} />}
    </div>
  );
}

function SearchHelp({ close }: { close: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div
      ref={ref}
      id="search-help"
      role="dialog"
      aria-label="Search syntax"
      tabIndex={-1}
      onKeyDown={(e) => {
        if (e.key === "Escape") close();
      }}
      className="absolute top-14 z-30 w-[34rem] rounded-md border border-border bg-bg p-3 text-[12px] text-fg shadow-lg"
    >
      <p className="mb-2 text-fg-muted">
        Case-insensitive. Every term must match; a field limits a term to one part of the rollout. Words need 3 letters
        or digits (2 Chinese, Japanese or Korean characters); at most 12 terms and 500 characters.
      </p>
      <table className="w-full">
        <tbody>
          {EXAMPLES.map((x) => (
            <tr key={x.query}>
              <td className="py-0.5 pr-3 align-top font-mono whitespace-nowrap">{x.query}</td>
              <td className="py-0.5 text-fg-muted">{x.finds}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={close} className="mt-2 rounded border border-border px-2 py-0.5">
        Close
      </button>
    </div>
  );
}
