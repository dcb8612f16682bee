"use client";

import Link from "next/link";
import type { ColumnDef } from "@tanstack/react-table";
import { Badge } from "@/components/ui/badge.tsx";
import { fmtScore, rewardTone } from "@/components/ui/format.ts";
import type { BrowseRow } from "@/lib/ledger/browse.ts";
import type { SortKey } from "@/lib/ledger/browse-schema.ts";
import { SnippetLine } from "@/components/search/snippet-text.tsx";

export type ColumnMeta = { sortKey?: SortKey; numeric?: boolean; label: string };

const score = (key: keyof BrowseRow, label: string, sortKey: SortKey): ColumnDef<BrowseRow> => ({
  id: key,
  header: label,
  meta: { sortKey, numeric: true, label } satisfies ColumnMeta,
  cell: ({ row }) => fmtScore(row.original[key] as number | null),
});

/** The browser's columns; with a search, a "Match" column after the trajectory shows where each row matched. */
export function browserColumns(detailQuery: string, searching = false): ColumnDef<BrowseRow>[] {
  const match: ColumnDef<BrowseRow>[] = searching
    ? [
        {
          id: "match",
          header: "Match",
          meta: { label: "Search match" } satisfies ColumnMeta,
          cell: ({ row }) => <SnippetLine snippets={row.original.snippets ?? []} />,
        },
      ]
    : [];
  return [
    {
      id: "trajectory",
      header: "Trajectory",
      meta: { sortKey: "id", label: "Trajectory" } satisfies ColumnMeta,
      cell: ({ row }) => (
        <Link
          className="font-mono text-[12px] text-accent hover:underline"
          href={`/trajectories/${encodeURIComponent(row.original.trajectoryId)}${detailQuery ? `?${detailQuery}` : ""}`}
          tabIndex={-1}
        >
          {row.original.trajectoryId}
        </Link>
      ),
    },
    ...match,
    { id: "run", header: "Run", meta: { label: "Run" } satisfies ColumnMeta, cell: ({ row }) => row.original.runId },
    {
      id: "step",
      header: "Step",
      meta: { sortKey: "step", numeric: true, label: "Step" } satisfies ColumnMeta,
      cell: ({ row }) => row.original.step,
    },
    {
      id: "ticket",
      header: "Ticket",
      meta: { label: "Ticket" } satisfies ColumnMeta,
      cell: ({ row }) => <span className="font-mono text-[12px]">{row.original.ticketId}</span>,
    },
    {
      id: "category",
      header: "Category",
      meta: { label: "Category" } satisfies ColumnMeta,
      cell: ({ row }) => row.original.category ?? "–",
    },
    {
      id: "reward",
      header: "Reward",
      meta: { sortKey: "reward", numeric: true, label: "Reward" } satisfies ColumnMeta,
      cell: ({ row }) =>
        row.original.status === "scored" || row.original.source === "external" ? (
          <Badge tone={rewardTone(row.original.reward)}>{fmtScore(row.original.reward)}</Badge>
        ) : (
          <Badge tone="bad">{row.original.status}</Badge>
        ),
    },
    score("rawReward", "Raw", "raw_reward"),
    score("outcome", "Outcome", "outcome"),
    score("policy", "Policy", "policy"),
    score("evidence", "Evidence", "evidence"),
    score("efficiency", "Efficiency", "efficiency"),
    score("communication", "Comm.", "communication"),
    {
      id: "deciding",
      header: "Deciding",
      meta: { label: "Deciding guardrail" } satisfies ColumnMeta,
      cell: ({ row }) =>
        row.original.decidingGuardrail ? (
          <Badge tone="bad">{row.original.decidingGuardrail}</Badge>
        ) : (
          <span className="text-fg-subtle">–</span>
        ),
    },
    {
      id: "guardrails",
      header: "Guardrails",
      meta: { label: "Triggered guardrails" } satisfies ColumnMeta,
      cell: ({ row }) => (
        <span className="flex flex-wrap gap-0.5">
          {row.original.guardrails.map((g) => (
            <Badge key={g} tone="warn">
              {g}
            </Badge>
          ))}
        </span>
      ),
    },
    {
      id: "capped",
      header: "Capped",
      meta: { label: "Capped" } satisfies ColumnMeta,
      cell: ({ row }) => (row.original.capped ? "yes" : ""),
    },
    {
      id: "handoff",
      header: "Hand-off",
      meta: { label: "Hand-off" } satisfies ColumnMeta,
      cell: ({ row }) => (row.original.handoff ? "yes" : ""),
    },
    {
      id: "toolSteps",
      header: "Tools",
      meta: { sortKey: "tool_steps", numeric: true, label: "Tool steps" } satisfies ColumnMeta,
      cell: ({ row }) => row.original.toolSteps ?? "–",
    },
    {
      id: "audit",
      header: "Audit",
      meta: { label: "Sampled / reviewed" } satisfies ColumnMeta,
      cell: ({ row }) =>
        row.original.reviewed ? (
          <Badge tone="accent">reviewed</Badge>
        ) : row.original.sampled ? (
          <Badge>sampled</Badge>
        ) : (
          ""
        ),
    },
  ];
}
