// Verifier throughput on one core: `npx tsx bench/verifier.ts [groups]`.
// Takes the demo generator's tickets (lib/demo, six categories) with K = 4 rollouts each (seeded, so every run scores
// the same data, with a realistic share of violations), then measures rollouts/s for: the floor (JSON.stringify +
// JSON.parse of the same rollout), scoring with bundle claims, scoring with the rule extractor, and the CLI path
// (parse a line, validate, score, serialise). Prints medians of several passes (wall clock and CPU time) and the ratio to the floor.
import os from "node:os";
import { demoRunValues, strideOf } from "@/lib/demo/generate.ts";
import { DEFAULT_CONFIG } from "@/lib/verifier/config.ts";
import { caseSchema, rolloutSchema, type Case, type Rollout } from "@/lib/verifier/schema.ts";
import { scoreInput } from "@/lib/verifier/score-input.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

const GROUPS = Number(process.argv[2] ?? 5000);
const K = 4;
const PASSES = 7;

/**
 * The demo generator's tickets (lib/demo: six categories, one case each) with K rollouts each, drawn a quarter of the
 * way along its training curve, where about half the rollouts carry a failure mode GRPO finds. Cases first, then
 * each ticket's K rollouts in ticket order, so rollout i belongs to case ⌊i / K⌋.
 */
function generate() {
  const cases: Case[] = [];
  const rollouts: Rollout[] = [];
  const spec = { runId: "bench", tickets: GROUPS, steps: 5, k: K, seed: "bench-verifier", variant: "normal" } as const;
  const quarter = strideOf(spec); // the second of five logged steps: a quarter of the way
  for (const v of demoRunValues(spec)) {
    if (v.kind === "case") cases.push(caseSchema.parse(v));
    else if (v.step === quarter) rollouts.push(rolloutSchema.parse(v));
  }
  return { cases, rollouts };
}

type Variant = { label: string; prepare?: () => unknown; run: (state: unknown) => void };

/**
 * Runs the variants round-robin — pass 1 of every variant, then pass 2, … — so that load from other processes
 * hits all of them alike. Per variant: the median rollouts per second of wall-clock time, the median rollouts per
 * second of CPU time of this process (robust when other processes compete for the cores; it includes V8's GC and
 * compiler threads, so it understates the main thread's rate), and the median of its per-pass wall-clock ratio to
 * the floor (variant 0) measured in the same pass. The first pass warms the JIT up and is dropped.
 */
function measure(n: number, variants: Variant[]): { wall: number; cpu: number; ratio: number }[] {
  const wall: number[][] = variants.map(() => []);
  const cpu: number[][] = variants.map(() => []);
  for (let pass = 0; pass <= PASSES; pass++) {
    variants.forEach((v, k) => {
      const state = v.prepare?.();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      v.run(state);
      const seconds = (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      if (pass > 0) {
        wall[k].push(n / seconds);
        cpu[k].push(n / ((c.user + c.system) / 1e6));
      }
    });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return variants.map((_, k) => ({
    wall: median(wall[k]),
    cpu: median(cpu[k]),
    ratio: median(wall[k].map((x, i) => x / wall[0][i])),
  }));
}

function main() {
  const { cases, rollouts } = generate();
  const n = rollouts.length;
  const caseOfRollout = rollouts.map((_, i) => cases[Math.floor(i / K)]);
  const noClaims = rollouts.map((r) => ({ ...r, claims: null }));
  const lines = rollouts.map((r) => JSON.stringify(r));
  const byTicket = new Map(cases.map((c) => [c.ticket.id, c]));
  const lookup = (t: string) => byTicket.get(t);

  // Sanity and mix: how the generated set scores.
  const hits = new Map<string, number>();
  let rewardSum = 0;
  for (let i = 0; i < n; i++) {
    const rec = scoreRollout(rollouts[i], caseOfRollout[i], DEFAULT_CONFIG);
    rewardSum += rec.reward ?? 0;
    for (const g of rec.guardrails) hits.set(g.code, (hits.get(g.code) ?? 0) + 1);
  }

  let sink = 0; // keeps the work observable so the JIT cannot drop it
  const variants: Variant[] = [
    {
      label: "floor: JSON.stringify + JSON.parse of the rollout",
      run: () => {
        for (const r of rollouts) sink += (JSON.parse(JSON.stringify(r)) as Rollout).step;
      },
    },
    {
      label: "scoreRollout, bundle claims, case cached",
      run: () => {
        for (let i = 0; i < n; i++) sink += scoreRollout(rollouts[i], caseOfRollout[i], DEFAULT_CONFIG).tool_steps ?? 0;
      },
    },
    {
      // Fresh case objects (as parsed from JSON) each pass: every ticket's spec is compiled once per group of K.
      label: "scoreRollout, bundle claims, case compiled once per group",
      prepare: () => cases.map((c) => JSON.parse(JSON.stringify(c)) as Case),
      run: (fresh) => {
        for (let i = 0; i < n; i++)
          sink += scoreRollout(rollouts[i], (fresh as Case[])[Math.floor(i / K)], DEFAULT_CONFIG).tool_steps ?? 0;
      },
    },
    {
      label: "scoreRollout, rule extractor, case cached",
      run: () => {
        for (let i = 0; i < n; i++) sink += scoreRollout(noClaims[i], caseOfRollout[i], DEFAULT_CONFIG).tool_steps ?? 0;
      },
    },
    {
      label: "CLI path: JSON.parse + zod validate + score + stringify",
      run: () => {
        for (const line of lines) sink += JSON.stringify(scoreInput(JSON.parse(line), lookup, DEFAULT_CONFIG)).length;
      },
    },
  ];
  const loadBefore = os.loadavg();
  const results = measure(n, variants);

  const fmt = (x: number) => Math.round(x).toLocaleString("en-US").padStart(10);
  console.log(
    `machine: ${os.cpus()[0]?.model ?? "unknown"} (${os.cpus().length} logical CPUs), node ${process.version}, ${os.platform()} ${os.arch()}`,
  );
  console.log(
    `load average: ${loadBefore.map((l) => l.toFixed(2)).join(" ")} before, ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} after`,
  );
  console.log(
    `data: ${GROUPS} tickets x K=${K} = ${n} rollouts, ${new Set(cases.map((c) => c.ticket.category)).size} categories; median of ${PASSES} round-robin passes, one core`,
  );
  console.log(
    `mix: mean reward ${(rewardSum / n).toFixed(3)}; guardrail hits ${[...hits].map(([c, h]) => `${c} ${((100 * h) / n).toFixed(1)}%`).join(", ")}`,
  );
  console.log(`${"".padEnd(58)}${"wall /s".padStart(10)}${"CPU /s".padStart(11)}   vs floor`);
  variants.forEach((v, k) =>
    console.log(
      `${v.label.padEnd(58)}${fmt(results[k].wall)} ${fmt(results[k].cpu)}   ${results[k].ratio.toFixed(2)}x`,
    ),
  );
  if (sink === -1) console.log(sink);
}

main();
