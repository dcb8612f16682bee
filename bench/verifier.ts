// Verifier throughput on one core: `npx tsx bench/verifier.ts [groups]`.
// Generates tickets of five categories with K = 4 rollouts each (seeded, so every run scores the same data, with a
// realistic share of violations), then measures rollouts/s for: the floor (JSON.stringify + JSON.parse of the same
// rollout), scoring with bundle claims, scoring with the rule extractor, and the CLI path (parse a line, validate,
// score, serialise). Prints medians of several passes (wall clock and CPU time) and the ratio to the floor.
import os from "node:os";
import { DEFAULT_CONFIG } from "@/lib/verifier/config.ts";
import { REGISTRY } from "@/lib/testing/verifier-fixtures.ts";
import type { Case, Claims, Rollout, SandboxWrite, Step } from "@/lib/verifier/schema.ts";
import { scoreInput } from "@/lib/verifier/score-input.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

const GROUPS = Number(process.argv[2] ?? 5000);
const K = 4;
const PASSES = 7;

// mulberry32: tiny seeded PRNG, so the data set is identical from run to run.
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(20261102);
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];

type Plan = { reads: Step[]; write: SandboxWrite; mention: Claims["mentioned"]; reply: string };
type Category = { name: string; makeCase(id: string, orderId: string, amount: number): Case; plan(c: Case): Plan };

const step = (name: string, input: Record<string, unknown>, ok = true): Step => ({
  type: "tool",
  name,
  input,
  output: "ok",
  status: ok ? "success" : "failed",
});
const snapshotOf = (orderId: string, amount: number) => ({
  order: { id: orderId, paid_amount: amount, currency: "EUR", status: "delivered", customer_id: "C-1" },
  customer: { id: "C-1", new_address: `${Math.floor(amount)} Main Street` },
  attachments: [{ id: `A-${orderId}`, kind: "photo", shows_damage: true }],
  policy: { damaged_item: { refund: "full", return_shipping_paid_by: "merchant" } },
});
function caseOf(id: string, category: string, orderId: string, amount: number, spec: Case["verifier_spec"]): Case {
  return {
    kind: "case",
    ticket: { id, category, customer_id: "C-1", message: "help" },
    env_snapshot: snapshotOf(orderId, amount),
    verifier_spec: spec,
  };
}
const orderOf = (c: Case) => c.env_snapshot.order as { id: string; paid_amount: number };

const CATEGORIES: Category[] = [
  {
    name: "refund_damaged",
    makeCase: (id, o, amt) =>
      caseOf(id, "refund_damaged", o, amt, {
        required_reads: ["order.get", "attachment.get", "policy.search"],
        policy: {
          query: { tool: "policy.search", args: { topic: "damaged_item" } },
          rules: [
            {
              tool: "logistics.create_return",
              arg: "label_paid_by",
              equals: "$policy.damaged_item.return_shipping_paid_by",
            },
          ],
        },
        allowed_writes: ["finance.issue_refund", "logistics.create_return"],
        required_writes: [
          {
            tool: "finance.issue_refund",
            args: { order_id: "$order.id", amount: "$order.paid_amount", currency: "$order.currency" },
          },
        ],
        harm: [
          { tool: "finance.issue_refund", arg: "amount", op: "lt", value: "$order.paid_amount" },
          { tool: "finance.charge_customer" },
        ],
        must_mention: [{ key: "refund_amount", value: "$order.paid_amount" }, { key: "refund_eta" }],
        forbidden: ["blame_customer"],
        step_budget: 8,
      }),
    plan: (c) => {
      const o = orderOf(c);
      return {
        reads: [
          step("order.get", { order_id: o.id }),
          step("attachment.get", { attachment_id: `A-${o.id}` }),
          step("policy.search", { topic: "damaged_item" }),
        ],
        write: { tool: "finance.issue_refund", args: { order_id: o.id, amount: o.paid_amount, currency: "EUR" } },
        mention: [
          { key: "refund_amount", value: o.paid_amount },
          { key: "refund_eta", value: "3-5 business days" },
        ],
        reply: `I have refunded ${o.paid_amount} EUR to your card; it arrives in 3-5 business days.`,
      };
    },
  },
  {
    name: "cancel_order",
    makeCase: (id, o, amt) =>
      caseOf(id, "cancel_order", o, amt, {
        required_reads: ["order.get"],
        allowed_writes: [],
        required_writes: [{ tool: "order.cancel", args: { order_id: "$order.id" } }],
        must_mention: [{ key: "cancellation_confirmed" }],
      }),
    plan: (c) => ({
      reads: [step("order.get", { order_id: orderOf(c).id })],
      write: { tool: "order.cancel", args: { order_id: orderOf(c).id } },
      mention: [{ key: "cancellation_confirmed" }],
      reply: "Your order has been cancelled.",
    }),
  },
  {
    name: "address_change",
    makeCase: (id, o, amt) =>
      caseOf(id, "address_change", o, amt, {
        required_reads: [{ any_of: ["customer.get", "order.get"] }],
        allowed_writes: [],
        required_writes: [
          {
            tool: "logistics.update_address",
            args: { order_id: "$order.id", address: "$customer.new_address" },
            after: ["order.get"],
          },
        ],
        must_mention: [{ key: "new_address", value: "$customer.new_address" }],
        forbidden: ["share_internal_policy"],
      }),
    plan: (c) => {
      const addr = (c.env_snapshot.customer as { new_address: string }).new_address;
      return {
        reads: [step("customer.get", { customer_id: "C-1" }), step("order.get", { order_id: orderOf(c).id })],
        write: { tool: "logistics.update_address", args: { order_id: orderOf(c).id, address: addr } },
        mention: [{ key: "new_address", value: addr }],
        reply: `I've updated your shipping address. New address: ${addr}.`,
      };
    },
  },
  {
    name: "reship_lost",
    makeCase: (id, o, amt) =>
      caseOf(id, "reship_lost", o, amt, {
        required_reads: ["order.get"],
        allowed_writes: ["logistics.create_return"],
        required_writes: [{ tool: "logistics.reship", args: { order_id: "$order.id" } }],
        must_mention: [{ key: "reship_eta" }],
        handoff: "allowed",
        step_budget: 5,
      }),
    plan: (c) => ({
      reads: [step("order.get", { order_id: orderOf(c).id })],
      write: { tool: "logistics.reship", args: { order_id: orderOf(c).id } },
      mention: [{ key: "reship_eta", value: "2-4 business days" }],
      reply: "A replacement has been shipped and will arrive within 2-4 business days.",
    }),
  },
  {
    name: "charge_dispute",
    makeCase: (id, o, amt) =>
      caseOf(id, "charge_dispute", o, amt, {
        required_reads: ["order.get", "policy.search"],
        policy: { query: { tool: "policy.search", args: { topic: "damaged_item" } } },
        allowed_writes: [],
        required_writes: [
          { tool: "finance.issue_refund", args: { order_id: "$order.id", amount: "$order.paid_amount" } },
        ],
        harm: [{ tool: "finance.charge_customer" }],
        must_mention: [{ key: "refund_amount", value: "$order.paid_amount" }],
        handoff: pick(["allowed", "not_allowed", "required"]),
      }),
    plan: (c) => {
      const o = orderOf(c);
      return {
        reads: [step("order.get", { order_id: o.id }), step("policy.search", { topic: "damaged_item" })],
        write: { tool: "finance.issue_refund", args: { order_id: o.id, amount: o.paid_amount, currency: "EUR" } },
        mention: [{ key: "refund_amount", value: o.paid_amount }],
        reply: `We refunded €${o.paid_amount}.`,
      };
    },
  },
];

/** One rollout of a case: mostly correct, with the failure modes GRPO discovers mixed in. */
function makeRolloutFor(c: Case, cat: Category, tid: string, k: number): Rollout {
  const p = cat.plan(c);
  let steps: Step[] = [...p.reads, step(p.write.tool, p.write.args)];
  let writes: SandboxWrite[] = [{ ...p.write, step: p.reads.length, at: "2026-11-02T09:01:10Z" }];
  let claims: Claims = { claimed_writes: [p.write.tool], mentioned: p.mention, forbidden_hits: [] };
  const r = rand();
  if (r < 0.1) {
    // Wrong arguments: an under-refund where there is an amount, another order otherwise.
    const args =
      "amount" in p.write.args
        ? { ...p.write.args, amount: Number(p.write.args.amount) / 2 }
        : { ...p.write.args, order_id: "O-other" };
    steps = [...p.reads, step(p.write.tool, args)];
    writes = [{ tool: p.write.tool, args, step: p.reads.length }];
  } else if (r < 0.2) {
    steps = [step(p.write.tool, p.write.args), ...p.reads]; // write before the evidence
    writes = [{ ...p.write, step: 0 }];
  } else if (r < 0.25) {
    steps = [...steps, step(p.write.tool, p.write.args)]; // duplicate
    writes = [...writes, { ...p.write, step: steps.length - 1 }];
  } else if (r < 0.35) {
    steps = [...p.reads, step("ticket.close", { ticket: tid })]; // empty promise
    writes = [];
  } else if (r < 0.4) {
    steps = [...p.reads, step("handoff.transfer_to_human", { reason: "complex" })];
    writes = [];
    claims = { claimed_writes: [], mentioned: [{ key: "handoff_notice" }], forbidden_hits: [] };
  } else if (r < 0.45) {
    const extra = {
      tool: "logistics.create_return",
      args: { order_id: p.write.args.order_id, label_paid_by: "customer" },
    };
    steps = [...steps, step(extra.tool, extra.args)];
    writes = [...writes, { ...extra, step: steps.length - 1 }];
    claims = { ...claims, forbidden_hits: ["blame_customer"] };
  } else if (r < 0.55) {
    steps = [
      ...steps,
      ...Array.from({ length: 1 + Math.floor(rand() * 8) }, () => step("order.get", {}, rand() < 0.8)),
    ];
  }
  return {
    kind: "rollout",
    trajectory_id: `${tid}/k${k}`,
    run_id: "bench",
    step: 1200,
    group_id: tid,
    sample_index: k,
    ticket_id: c.ticket.id,
    trajectory: {
      steps: [{ type: "llm", name: "assistant", output: "Let me check." }, ...steps],
      final_reply: p.reply,
    },
    sandbox: { writes: writes.map((w) => ({ ...w, step: w.step === undefined ? undefined : w.step + 1 })), tables: {} },
    tool_registry: REGISTRY,
    claims,
  };
}

function generate() {
  const cases: Case[] = [];
  const rollouts: Rollout[] = [];
  for (let g = 0; g < GROUPS; g++) {
    const cat = CATEGORIES[g % CATEGORIES.length];
    const c = cat.makeCase(`T-${g}`, `O-${g}`, Math.round((5 + rand() * 400) * 100) / 100);
    cases.push(c);
    for (let k = 0; k < K; k++) rollouts.push(makeRolloutFor(c, cat, `bench/s1200/g${g}`, k));
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
    `data: ${GROUPS} tickets x K=${K} = ${n} rollouts, ${CATEGORIES.length} categories; median of ${PASSES} round-robin passes, one core`,
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
