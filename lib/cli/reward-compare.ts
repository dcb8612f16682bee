// `verity reward compare --run R [--batch B] [--from S --to S] [--sort COL] [--dir asc|desc] [--threshold ID:T,...]
// [--a ID --b ID] [--json]`: the reward leaderboard (docs/leaderboard.md) as a table, or with --json what
// GET /api/v1/reward-leaderboard returns.
import type { Figure } from "@/lib/agreement/figures.ts";
import type { Io } from "@/lib/cli/command.ts";
import { clientOver } from "@/lib/db/client.ts";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import { MISSING_REASONS } from "@/lib/leaderboard/input.ts";
import { loadLeaderboard } from "@/lib/leaderboard/loaders.ts";
import { parseLeaderboardQuery } from "@/lib/leaderboard/schema.ts";
import type { LeaderboardView, ViewRow } from "@/lib/leaderboard/view.ts";

export const COMPARE_FLAGS = ["run", "batch", "from", "to", "sort", "dir", "threshold", "a", "b"] as const;

/** The figure as the page shows it: its label, "—" when absent. */
const shown = (f: Figure | null | undefined) => (f ? f.label : "—");

const COLUMNS: [string, (r: ViewRow) => string][] = [
  ["row", (r) => `${r.isLedger ? "* " : "  "}${r.label} [${r.id}]`],
  ["kind", (r) => r.kind],
  ["covered", (r) => `${r.coverage.covered}/${r.coverage.items}`],
  [
    "missing",
    (r) =>
      MISSING_REASONS.filter((m) => r.coverage.missing[m] > 0)
        .map((m) => `${m.replace("_", " ")} ${r.coverage.missing[m]}`)
        .join(", ") || "—",
  ],
  ["agreement", (r) => shown(r.verdict.agreement)],
  ["kappa", (r) => shown(r.verdict.kappa).replace(/^not defined: .*/, "not defined")],
  ["AC1", (r) => shown(r.verdict.ac1)],
  ["sens.", (r) => shown(r.verdict.sensitivity)],
  ["spec.", (r) => shown(r.verdict.specificity)],
  ["MAE", (r) => shown(r.reward.mae)],
  ["rho", (r) => shown(r.reward.spearman).replace(/^not defined: .*/, "not defined")],
  ["ordering", (r) => shown(r.ordering?.agreement)],
  ["$/1k", (r) => (r.cost.costPer1000 === null ? "—" : r.cost.costPer1000.toFixed(3))],
  ["latency", (r) => (r.cost.medianLatencyMs === null ? "—" : `${Math.round(r.cost.medianLatencyMs)} ms`)],
];

/** The leaderboard as aligned columns, the ledger's row marked with *, then the head to head when two rows are named. */
export function leaderboardTable(v: LeaderboardView): string[] {
  const cells = [COLUMNS.map(([h]) => h), ...v.rows.map((r) => COLUMNS.map(([, f]) => f(r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  const scope = `${v.scope.run}${v.scope.batch ? `, batch #${v.scope.batch.id} ${v.scope.batch.name}` : ""}${
    v.scope.from !== null || v.scope.to !== null ? `, steps ${v.scope.from ?? 0}–${v.scope.to ?? "end"}` : ""
  }`;
  const lines = [
    `reward leaderboard of ${scope}: ${v.items} audited items, ${v.pairwiseJudgements} pairwise judgements; sorted by ${v.scope.sort}; * the ledger; below ${v.minItems} items a figure reads "too few to say"`,
    ...cells.map((c) =>
      c
        .map((x, i) => x.padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    ),
  ];
  const h = v.headToHead;
  if (h) {
    const d = (x: { estimate: number; lower: number; upper: number } | null) =>
      x ? `${x.estimate.toFixed(3)} (95% CI ${x.lower.toFixed(3)} to ${x.upper.toFixed(3)})` : "not defined";
    lines.push(
      "",
      `head to head: A = ${h.a.label}, B = ${h.b.label}, on ${h.n} items both scored (${h.onlyOne} scored by one only)${h.tooFew ? ": too few to say" : ""}`,
      `  agreement A − B  ${h.agreement ? `${h.agreement.difference.toFixed(3)} (95% CI ${h.agreement.interval!.lower.toFixed(3)} to ${h.agreement.interval!.upper.toFixed(3)}), McNemar exact p = ${h.agreement.pValue.toPrecision(3)}` : "no items"}`,
      `  MAE A − B        ${d(h.mae)}`,
      `  rho A − B        ${d(h.spearman)}`,
      `  verdict          ${h.verdict.text}`,
      `  disagreements    ${h.sides.a + h.sides.b} (the human sided with A on ${h.sides.a}, with B on ${h.sides.b})`,
    );
  }
  return lines;
}

export async function compare(values: Record<string, string | boolean | undefined>, io: Io): Promise<number> {
  const given = Object.fromEntries(COMPARE_FLAGS.map((k) => [k, values[k] as string | undefined]));
  const parsed = parseLeaderboardQuery(given);
  if (!parsed.ok) {
    io.err(`verity reward compare: ${parsed.errors.map((e) => `--${e}`).join("; ")}`);
    return 2;
  }
  const loaded = await withBulkDatabase((pool) => loadLeaderboard(parsed.query, clientOver(pool)));
  if (!loaded.ok) {
    io.err(`verity reward compare: --${loaded.error}`);
    return 1;
  }
  if (values.json) io.out(JSON.stringify(loaded.view));
  else for (const line of leaderboardTable(loaded.view)) io.out(line);
  return 0;
}
