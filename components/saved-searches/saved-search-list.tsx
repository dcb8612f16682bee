"use client";
// The user's saved searches: each opens in the trajectory browser, can be renamed or deleted. Query text is shown
// as text (never as markup).
import Link from "next/link";
import { useActionState } from "react";
import { FormMessage, inputClass } from "@/components/ui/field.tsx";
import { deleteSavedSearchAction, renameSavedSearchAction } from "@/lib/actions/saved-searches.ts";
import type { SavedSearchFormState } from "@/lib/saved-searches/schema.ts";

export type SavedSearchItem = {
  id: number;
  name: string;
  query: string;
  runId: string | null;
  alarmShare: number | null;
};

function browserHref(s: SavedSearchItem): string {
  const q = new URLSearchParams({ q: s.query });
  if (s.runId) q.set("run", s.runId);
  return `/trajectories?${q}`;
}

function Row({ s }: { s: SavedSearchItem }) {
  const [renamed, rename, renaming] = useActionState<SavedSearchFormState, FormData>(renameSavedSearchAction, {});
  const [deleted, remove, deleting] = useActionState<SavedSearchFormState, FormData>(deleteSavedSearchAction, {});
  return (
    <li
      className="flex flex-wrap items-center gap-2 border-b border-border px-3 py-1.5 text-[12px]"
      data-saved={s.name}
    >
      <Link className="font-medium text-accent" href={browserHref(s)}>
        {s.name}
      </Link>
      <span className="font-mono text-fg-muted">{s.query}</span>
      <span className="text-fg-muted">{s.runId ? `run ${s.runId}` : "every run"}</span>
      {s.alarmShare !== null && <span className="text-fg-muted">alarm {Math.round(s.alarmShare * 1000) / 10}%</span>}
      <form action={rename} aria-label={`Rename ${s.name}`} className="ml-auto flex items-center gap-1">
        <input type="hidden" name="id" value={s.id} />
        <input
          name="name"
          aria-label="New name"
          defaultValue={s.name}
          maxLength={80}
          className={`${inputClass} w-40`}
        />
        <button type="submit" disabled={renaming} className="rounded border border-border px-2 py-0.5">
          Rename
        </button>
      </form>
      <form action={remove} aria-label={`Delete ${s.name}`}>
        <input type="hidden" name="id" value={s.id} />
        <button type="submit" disabled={deleting} className="rounded border border-border px-2 py-0.5 text-bad">
          Delete
        </button>
      </form>
      <FormMessage state={renamed.ok === false ? renamed : deleted} className="w-full" />
    </li>
  );
}

export function SavedSearchList({ searches }: { searches: SavedSearchItem[] }) {
  if (!searches.length)
    return (
      <p className="px-3 py-2 text-[12px] text-fg-muted">
        No saved searches yet: search in the trajectory browser and use &ldquo;Save this search&rdquo;.
      </p>
    );
  return (
    <ul aria-label="Saved searches">
      {searches.map((s) => (
        <Row key={s.id} s={s} />
      ))}
    </ul>
  );
}
