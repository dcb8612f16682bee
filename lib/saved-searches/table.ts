// A saved search's count per step as a chart table (lib/monitors/series.ts): the step's rollouts, those matching,
// and their share — the table its chart draws, its CSV writes and the clusters page lists. Pure; safe in client
// components.
import type { ChartTable } from "@/lib/monitors/series.ts";
import { ratio } from "@/lib/rollups/stats.ts";

/** One step of a saved search's count: the step's current entries and those whose rollout matches. */
export type StepShare = { step: number; rollouts: number; matches: number };

/** Column key of the share (matches ÷ rollouts of the step; null for a step without rollouts). */
export const SHARE_KEY = "share";

export function shareTable(steps: readonly StepShare[]): ChartTable {
  return {
    columns: [
      { key: "rollouts", label: "rollouts", format: "count" },
      { key: "matches", label: "matching rollouts", format: "count" },
      { key: SHARE_KEY, label: "share matching", format: "percent" },
    ],
    rows: steps.map((s) => ({
      step: s.step,
      rollouts: s.rollouts,
      matches: s.matches,
      [SHARE_KEY]: ratio(s.matches, s.rollouts),
    })),
  };
}
