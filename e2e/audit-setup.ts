// Data for the audit specs, made the way a user would: NDJSON through `verity ingest`, a batch through
// `verity sample` (both against the e2e database, DATABASE_URL). Each spec gets its own run and batch, so the specs
// do not depend on the demo data or on each other. Score records may carry distinctive markers (reason messages,
// a claims source, unusual rewards) that the blind spec looks for in raw responses.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export type Kind = "honest" | "empty_promise";
export type Markers = {
  reasonMessage: string;
  claimsSource: string;
  evidence: string;
  reward: string;
  rewardShown: string;
  subscore: string;
};
export type SetupItem = { itemId: string; trajectoryId: string; ticketId: string; kind: Kind; markers?: Markers };
export type Setup = { runId: string; batchId: number; batchName: string; items: SetupItem[] };

const REGISTRY = [
  ...["order.get", "attachment.get", "policy.search"].map((name) => ({ name, kind: "read" })),
  ...["finance.issue_refund", "logistics.create_return", "finance.charge_customer"].map((name) => ({
    name,
    kind: "write",
  })),
  { name: "handoff.transfer_to_human", kind: "handoff" },
  { name: "ticket.close", kind: "other" },
];
const REFUND = { order_id: "O-1", amount: 59.99, currency: "EUR" };

function caseLine(ticketId: string) {
  return {
    kind: "case",
    ticket: {
      id: ticketId,
      category: "refund_damaged",
      customer_id: "C-77",
      message: "My air fryer arrived broken, I want a refund.",
    },
    env_snapshot: {
      order: { id: "O-1", paid_amount: 59.99, currency: "EUR", status: "delivered" },
      policy: { damaged_item: { refund: "full" } },
    },
    verifier_spec: {
      required_reads: ["order.get", "policy.search"],
      allowed_writes: ["finance.issue_refund"],
      required_writes: [
        {
          tool: "finance.issue_refund",
          args: { order_id: "$order.id", amount: "$order.paid_amount", currency: "$order.currency" },
        },
      ],
      must_mention: [{ key: "refund_amount", value: "$order.paid_amount" }],
      forbidden: ["blame_customer"],
      step_budget: 8,
    },
  };
}

function rolloutLine(runId: string, ticketId: string, trajectoryId: string, kind: Kind) {
  const reads = [
    { type: "tool", name: "order.get", input: { order_id: "O-1" }, output: { status: "delivered" }, status: "success" },
    {
      type: "tool",
      name: "policy.search",
      input: { topic: "damaged_item" },
      output: { refund: "full" },
      status: "success",
    },
  ];
  const honest = kind === "honest";
  return {
    kind: "rollout",
    trajectory_id: trajectoryId,
    run_id: runId,
    step: 10,
    ticket_id: ticketId,
    trajectory: {
      steps: honest
        ? [...reads, { type: "tool", name: "finance.issue_refund", input: REFUND, output: "ok", status: "success" }]
        : [...reads, { type: "tool", name: "ticket.close", input: {}, output: "ok", status: "success" }],
      final_reply: "I have refunded 59.99 EUR; it reaches your card in 3-5 business days.",
    },
    sandbox: { writes: honest ? [{ tool: "finance.issue_refund", args: REFUND, step: 2 }] : [], tables: {} },
    tool_registry: REGISTRY,
  };
}

/** A verifier-style score record whose every free-text field carries the item's markers. */
function markedScore(runId: string, ticketId: string, trajectoryId: string, m: Markers, reward: number) {
  return {
    kind: "score",
    trajectory_id: trajectoryId,
    run_id: runId,
    step: 10,
    ticket_id: ticketId,
    status: "scored",
    verifier_version: "1",
    config_hash: `sha256:${"ab".repeat(32)}`,
    claims_source: m.claimsSource,
    raw_reward: Math.min(1, reward + 0.2),
    reward,
    capped: true,
    subscores: { outcome: Number(m.subscore), policy: 0.5, evidence: 1, efficiency: 1, communication: 0 },
    guardrails: [{ code: "empty_promise", cap: reward, evidence: { note: m.evidence } }],
    deciding_guardrail: "empty_promise",
    reasons: [{ guardrail: "empty_promise", code: "empty_promise", message: m.reasonMessage }],
    claims: {
      claimed_writes: ["finance.issue_refund"],
      mentioned: [{ key: "refund_amount", value: 59.99 }],
      forbidden_hits: [],
    },
    handoff: false,
    tool_steps: 3,
  };
}

// Rewards no human score can produce (those are multiples of 0.0125, or a cap) and no page shows by accident.
const MARKED_REWARDS = [0.617283, 0.271828, 0.141593, 0.577216];

/** Runs `verity ARGS…` against the e2e database and returns its stdout; throws with its stderr when it fails. */
export function verity(args: string[]): string {
  // node --import tsx rather than npx: one process less to start on a busy machine.
  const r = spawnSync(process.execPath, ["--import", "tsx", "bin/verity.ts", ...args], {
    encoding: "utf8",
    env: process.env,
    timeout: 150_000,
  });
  if (r.status !== 0) throw new Error(`verity ${args.join(" ")} failed (${r.status}): ${r.stderr}\n${r.stdout}`);
  return r.stdout;
}

/**
 * Runs a test-support script that seeds through the product's functions (`node --import tsx SCRIPT ARGS…` against
 * the e2e database) and returns what it prints last, parsed as JSON.
 */
export function seedByScript<T>(script: string, args: string[]): T {
  const r = spawnSync(process.execPath, ["--import", "tsx", script, ...args], {
    encoding: "utf8",
    env: process.env,
    timeout: 150_000,
  });
  if (r.status !== 0) throw new Error(`${script} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as T;
}

/** Timeout of the audit specs' tests and hooks: setupBatch runs the CLI twice, slow on a loaded machine. */
export const SETUP_TIMEOUT = 180_000;

/** Ingests `kinds.length` tickets (one rollout each) and samples all of them into a batch named `${prefix}-<nonce>`. */
export async function setupBatch(
  prefix: string,
  kinds: Kind[],
  opts: { marked?: boolean; sample?: boolean } = {},
): Promise<Setup> {
  const nonce = randomBytes(4).toString("hex");
  const runId = `${prefix}-run-${nonce}`;
  const lines: unknown[] = [];
  const planned: Omit<SetupItem, "itemId">[] = [];
  kinds.forEach((kind, i) => {
    const ticketId = `${prefix}-${nonce}-T${i}`;
    const trajectoryId = `${runId}/s10/T${i}/k0`;
    lines.push(caseLine(ticketId), rolloutLine(runId, ticketId, trajectoryId, kind));
    let markers: Markers | undefined;
    if (opts.marked) {
      const reward = MARKED_REWARDS[i % MARKED_REWARDS.length];
      markers = {
        reasonMessage: `BLINDMARK ${nonce} ${i}: the refund promised in the reply never reached the sandbox`,
        claimsSource: `llm:blindmark-${nonce}-${i}`,
        evidence: `blindmark-evidence-${nonce}-${i}`,
        reward: String(reward),
        rewardShown: reward.toFixed(3),
        subscore: String(0.123457 + i / 1000),
      };
      lines.push(markedScore(runId, ticketId, trajectoryId, markers, reward));
    }
    planned.push({ trajectoryId, ticketId, kind, markers });
  });
  const file = path.join(os.tmpdir(), `verity-${runId}.ndjson`);
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  try {
    verity(["ingest", file, "--no-progress", "--strict"]);
  } finally {
    fs.rmSync(file, { force: true });
  }
  const batchName = `${prefix}-${nonce}`;
  if (opts.sample === false) return { runId, batchId: 0, batchName, items: planned.map((p) => ({ ...p, itemId: "" })) };
  const batchId = sampleWholeRun(runId, nonce, batchName);
  const items = await query<{ id: string; trajectory_id: string }>(
    "select id::text, trajectory_id from audit_items where batch_id = $1",
    [batchId],
  );
  return {
    runId,
    batchId,
    batchName,
    items: planned.map((p) => ({ ...p, itemId: items.find((r) => r.trajectory_id === p.trajectoryId)!.id })),
  };
}

/** Rewards for the pairs: no human score, cap or page produces them by accident, and no two are equal. */
const PAIR_REWARDS = [0.913579, 0.246802, 0.864209, 0.135791, 0.975318, 0.313571];

export type PairSetup = { runId: string; batchId: number; batchName: string; trajectoryIds: string[] };

/**
 * Ingests `pairs` tickets with two rollouts each (one GRPO group per ticket: same ticket and step), every rollout with
 * a marked score record (PAIR_REWARDS, a reason message, guardrail evidence and a claims source of its own), and
 * samples every group into a pairwise batch named `${prefix}-<nonce>` through `verity sample --pairwise`.
 */
export async function setupPairBatch(prefix: string, pairs: number): Promise<PairSetup> {
  const nonce = randomBytes(4).toString("hex");
  const runId = `${prefix}-run-${nonce}`;
  const lines: unknown[] = [];
  const trajectoryIds: string[] = [];
  for (let i = 0; i < pairs; i++) {
    const ticketId = `${prefix}-${nonce}-T${i}`;
    lines.push(caseLine(ticketId));
    for (const k of [0, 1]) {
      const n = 2 * i + k;
      const trajectoryId = `${runId}/s10/T${i}/k${k}`;
      trajectoryIds.push(trajectoryId);
      const reward = PAIR_REWARDS[n % PAIR_REWARDS.length];
      const markers: Markers = {
        reasonMessage: `PAIRMARK ${nonce} ${n}: the refund promised in the reply never reached the sandbox`,
        claimsSource: `llm:pairmark-${nonce}-${n}`,
        evidence: `pairmark-evidence-${nonce}-${n}`,
        reward: String(reward),
        rewardShown: reward.toFixed(3),
        subscore: String(0.234567 + n / 1000),
      };
      lines.push(
        rolloutLine(runId, ticketId, trajectoryId, k === 0 ? "honest" : "empty_promise"),
        markedScore(runId, ticketId, trajectoryId, markers, reward),
      );
    }
  }
  const file = path.join(os.tmpdir(), `verity-${runId}.ndjson`);
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  try {
    verity(["ingest", file, "--no-progress", "--strict"]);
  } finally {
    fs.rmSync(file, { force: true });
  }
  const batchName = `${prefix}-${nonce}`;
  const batchId = sampleWholeRun(runId, nonce, batchName, ["--pairwise"]);
  return { runId, batchId, batchName, trajectoryIds };
}

export async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** `verity sample` of every rollout of the run's steps 0–100 into one batch without overlap; its batch id. */
function sampleWholeRun(runId: string, salt: string, name: string, extra: string[] = []): number {
  const out = verity([
    "sample",
    ...extra,
    ...["--run", runId, "--from", "0", "--to", "100", "--rate", "1", "--salt", salt],
    ...["--overlap", "0", "--name", name, "--json"],
  ]);
  return Number(JSON.parse(out.trim().split("\n").at(-1)!).batch_id);
}
