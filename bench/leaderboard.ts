// The reward leaderboard's computation: `npx tsx bench/leaderboard.ts [items] [functions] [rounds]` (defaults 10000,
// 20, 5). Builds the leaderboard (every row's agreement, κ by bootstrap, AC1, PABAK, sensitivity, specificity, MAE,
// Spearman ρ, ordering, the per-guardrail and per-category breakdowns, probe and retest) of `functions` reward-function
// rows beside the ledger's over `items` audited items, from a generated input (lib/testing/leaderboard-data.ts, each
// function a re-drawn copy of its candidates), and sorts it. Baseline, in the same run: the same build with the
// ledger's row alone (what the agreement report computes for one reward). Prints p50 and max over the rounds and the
// ratio per row. The database read that feeds it is the agreement report's (bench/agreement.ts) plus one scan of the
// functions' results; it is not part of this figure.
import { buildLeaderboard, sortLeaderboard } from "@/lib/leaderboard/build.ts";
import type { Candidate, LeaderboardInput } from "@/lib/leaderboard/input.ts";
import { leaderboardInput } from "@/lib/testing/leaderboard-data.ts";

const [ITEMS, FUNCTIONS, ROUNDS] = [10_000, 20, 5].map((d, i) => Number(process.argv[2 + i] ?? d));

/** `n` function rows: the generated candidates other than the ledger, drawn again with other seeds, renamed. */
function functionRows(n: number): {
  items: LeaderboardInput["items"];
  pairwise: LeaderboardInput["pairwise"];
  ledger: Candidate;
  rest: Candidate[];
} {
  const base = leaderboardInput(1, ITEMS);
  const rest: Candidate[] = [];
  for (let seed = 2; rest.length < n; seed++) {
    const other = leaderboardInput(seed, ITEMS).candidates.filter((c) => c.kind !== "ledger");
    for (const c of other)
      if (rest.length < n) rest.push({ ...c, id: `${c.id}-${seed}`, label: `${c.label} #${seed}` });
  }
  return {
    items: base.items,
    pairwise: base.pairwise,
    ledger: base.candidates.find((c) => c.kind === "ledger")!,
    rest,
  };
}

function time(input: LeaderboardInput): number {
  const t0 = performance.now();
  sortLeaderboard(buildLeaderboard(input).rows, "agreement", "desc");
  return performance.now() - t0;
}

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

const { items, pairwise, ledger, rest } = functionRows(FUNCTIONS);
const alone: LeaderboardInput = { items, pairwise, candidates: [ledger] };
const full: LeaderboardInput = { items, pairwise, candidates: [ledger, ...rest] };
time(alone);
time(full); // warm-up
const base: number[] = [];
const all: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  base.push(time(alone));
  all.push(time(full));
}
const p50 = (xs: number[]) => quantile(xs, 0.5);
console.log(
  `${items.length.toLocaleString("en-US")} audited items, ${pairwise.length.toLocaleString("en-US")} pairwise judgements, ${ROUNDS} rounds`,
);
console.log("| build and sort | rows | p50 ms | max ms | per row, vs baseline |");
console.log("|---|---:|---:|---:|---:|");
console.log(
  `| baseline: the ledger's row alone | 1 | ${p50(base).toFixed(0)} | ${Math.max(...base).toFixed(0)} | 1.00× |`,
);
console.log(
  `| the ledger and ${FUNCTIONS} functions | ${FUNCTIONS + 1} | ${p50(all).toFixed(0)} | ${Math.max(...all).toFixed(0)} | ${(p50(all) / (FUNCTIONS + 1) / p50(base)).toFixed(2)}× |`,
);
console.log(
  `target: the page's computation within 1 s: ${p50(all) <= 1000 ? "met" : "NOT met"} (${p50(all).toFixed(0)} ms)`,
);
