// Code rewards in the sandbox: warm workers against one sandboxed process per rollout, on the template
// "0.7 × answer + 0.3 × tool" (the platform's example 5) over seeded reward-platform payloads. Exported for
// bench/rewards.ts; bench/rewards-code.ts runs it alone.
import os from "node:os";
import { CodeRewardPool, sandboxAvailability, type CodeOutcome } from "@/lib/rewards/sandbox/index.ts";
import { codeTemplate } from "@/lib/rewards/templates/code.ts";
import { mulberry32 } from "@/lib/stats/prng.ts";

export type CodeRewardFigures = {
  rollouts: number;
  warmPerSecond: number;
  warmMedianMs: number;
  coldRollouts: number;
  coldPerSecond: number;
  ratio: number;
};

const TOOLS = ["query_line_status", "lookup_customer", "create_ticket", "schedule_engineer"];
const LABELS = ["fault_report", "billing_question", "cancellation", "upgrade_request"];

/** `n` payloads with the reward example 5 must give each (60 % of replies hold the label, 70 % call the tool). */
export function codeRewardPayloads(n: number, seed = 20261206): { payloads: string[]; expected: number[] } {
  const rand = mulberry32(seed);
  const payloads: string[] = [];
  const expected: number[] = [];
  for (let i = 0; i < n; i++) {
    const label = LABELS[Math.floor(rand() * LABELS.length)];
    const answer = rand() < 0.6;
    const tool = rand() < 0.7;
    const names = TOOLS.slice(1, 1 + Math.floor(rand() * 3));
    if (tool) names.splice(Math.floor(rand() * (names.length + 1)), 0, "query_line_status");
    const steps = names.map((name, k) => ({
      type: "tool",
      name,
      input: JSON.stringify({ line_id: `L-${1000 + i}`, attempt: k }),
      output: "ok",
      status: "success",
    }));
    const reply = `Thank you for waiting. ${answer ? `I have filed this as ${label}.` : "I have noted your message."} An engineer will call you today between 9 and 12; your reference is R-${i}.`;
    payloads.push(
      JSON.stringify({
        input: `Ticket ${i}: my line is down`,
        reference_output: label,
        trajectory: { root: { output: reply }, steps },
      }),
    );
    expected.push((answer ? 0.7 : 0) + (tool ? 0.3 : 0));
  }
  return { payloads, expected };
}

function check(outcomes: CodeOutcome[], expected: number[], offset = 0) {
  outcomes.forEach((o, i) => {
    if (o.status !== "ok" || Math.abs((o.reward ?? NaN) - expected[offset + i]) > 1e-9)
      throw new Error(
        `rollout ${offset + i}: ${o.status} ${o.reward} ${o.error ?? ""}, expected ${expected[offset + i]}`,
      );
  });
}

/** One sandboxed process per rollout: a fresh single-worker pool per payload, `lanes` at a time. */
async function coldRate(
  payloads: string[],
  source: string,
  lanes: number,
): Promise<{ outcomes: CodeOutcome[]; seconds: number }> {
  const outcomes: CodeOutcome[] = new Array(payloads.length);
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    for (let i = next++; i < payloads.length; i = next++) {
      const pool = new CodeRewardPool({ source, workers: 1 });
      outcomes[i] = await pool.run(payloads[i]);
      await pool.close();
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return { outcomes, seconds: (performance.now() - started) / 1000 };
}

export async function benchCodeRewards(
  opts: { rollouts?: number; coldRollouts?: number } = {},
): Promise<CodeRewardFigures> {
  const available = sandboxAvailability();
  if (!available.ok) throw new Error(`code rewards cannot be measured: ${available.reason}`);
  const rollouts = opts.rollouts ?? 20_000;
  const coldRollouts = opts.coldRollouts ?? 100;
  const workers = 2;
  const source = codeTemplate("answer_and_tool").source;
  const { payloads, expected } = codeRewardPayloads(rollouts);
  console.log(
    `code rewards: example 5 (0.7 × answer + 0.3 × tool), ${workers} workers, ${os.availableParallelism()} CPUs, load ${os.loadavg()[0].toFixed(1)}`,
  );

  const pool = new CodeRewardPool({ source, workers });
  check(await pool.runMany(payloads.slice(0, 200)), expected); // warm-up: both workers started and loaded
  const started = performance.now();
  const outcomes = await pool.runMany(payloads);
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  check(outcomes, expected);
  const latencies = outcomes.map((o) => o.latencyMs).sort((a, b) => a - b);
  const warmPerSecond = rollouts / seconds;
  const warmMedianMs = latencies[Math.floor(latencies.length / 2)];

  const cold = await coldRate(payloads.slice(0, coldRollouts), source, workers);
  check(cold.outcomes, expected);
  const coldPerSecond = coldRollouts / cold.seconds;
  const ratio = warmPerSecond / coldPerSecond;

  const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
  console.log(
    `  warm workers: ${rollouts} rollouts in ${seconds.toFixed(2)} s = ${Math.round(warmPerSecond)} rollouts/s (median call ${warmMedianMs.toFixed(2)} ms); target ≥ 1,000: ${verdict(warmPerSecond >= 1000)}`,
  );
  console.log(
    `  one sandboxed process per rollout: ${coldRollouts} rollouts in ${cold.seconds.toFixed(2)} s = ${coldPerSecond.toFixed(1)} rollouts/s`,
  );
  console.log(`  ratio warm / one process per rollout: ${ratio.toFixed(1)}x; target ≥ 30x: ${verdict(ratio >= 30)}`);
  return { rollouts, warmPerSecond, warmMedianMs, coldRollouts, coldPerSecond, ratio };
}
