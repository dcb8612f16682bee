// Hand-built cases and rollouts for tests and the benchmark. The defaults are the damaged-item refund of
// formats.md done right (reward 1); each test changes only what it is about.
import type {
  Case,
  Claims,
  ReadRequirement,
  Rollout,
  SandboxWrite,
  Step,
  VerifierSpec,
} from "@/lib/verifier/schema.ts";

export const SNAPSHOT = {
  order: { id: "O-1", paid_amount: 59.99, currency: "EUR", status: "delivered", customer_id: "C-77" },
  attachments: [{ id: "A-1", kind: "photo", shows_damage: true }],
  policy: { damaged_item: { refund: "full", return_shipping_paid_by: "merchant" } },
};

export const REFUND_ARGS = { order_id: "O-1", amount: 59.99, currency: "EUR" };

export const BASE_SPEC: VerifierSpec = {
  required_reads: ["order.get", "attachment.get", "policy.search"],
  policy: {
    query: { tool: "policy.search", args: { topic: "damaged_item" } },
    rules: [
      { tool: "logistics.create_return", arg: "label_paid_by", equals: "$policy.damaged_item.return_shipping_paid_by" },
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
  handoff: "not_allowed",
  step_budget: 8,
};

export const REGISTRY: Rollout["tool_registry"] = [
  ...["order.get", "attachment.get", "policy.search", "customer.get", "risk.check"].map((name) => ({
    name,
    kind: "read" as const,
  })),
  ...[
    "finance.issue_refund",
    "logistics.create_return",
    "logistics.reship",
    "logistics.update_address",
    "finance.charge_customer",
    "order.cancel",
  ].map((name) => ({ name, kind: "write" as const })),
  { name: "handoff.transfer_to_human", kind: "handoff" },
  { name: "ticket.close", kind: "other" },
];

/** A case whose spec is BASE_SPEC with `spec` laid over it; a key set to undefined is removed. */
export function makeCase(
  spec: Partial<Record<keyof VerifierSpec, unknown>> = {},
  snapshot: Record<string, unknown> = SNAPSHOT,
  ticketId = "T-1001",
): Case {
  const merged: Record<string, unknown> = structuredClone({ ...BASE_SPEC, ...spec });
  for (const k of Object.keys(merged)) if (merged[k] === undefined) delete merged[k];
  return {
    kind: "case",
    ticket: {
      id: ticketId,
      category: "refund_damaged",
      customer_id: "C-77",
      message: "My air fryer arrived broken.",
      created_at: "2026-11-02T09:00:00Z",
    },
    env_snapshot: structuredClone(snapshot),
    verifier_spec: merged as VerifierSpec,
  };
}

export function tool(name: string, input: unknown = {}, status: "success" | "failed" = "success"): Step {
  return { type: "tool", name, input, output: "ok", status } as Step;
}

export function llm(output: string): Step {
  return { type: "llm", name: "assistant", output };
}

export function write(toolName: string, args: Record<string, unknown>, step?: number, at?: string): SandboxWrite {
  return { tool: toolName, args, ...(step === undefined ? {} : { step }), ...(at === undefined ? {} : { at }) };
}

export const reads = (): Step[] => [
  tool("order.get", { order_id: "O-1" }),
  tool("attachment.get", { attachment_id: "A-1" }),
  tool("policy.search", { topic: "damaged_item" }),
];

export function honestClaims(over: Partial<Claims> = {}): Claims {
  return {
    claimed_writes: ["finance.issue_refund"],
    mentioned: [
      { key: "refund_amount", value: 59.99 },
      { key: "refund_eta", value: "3-5 business days" },
    ],
    forbidden_hits: [],
    ...over,
  };
}

export type RolloutParts = {
  steps: Step[];
  writes: SandboxWrite[];
  claims: Claims | null;
  reply: string;
  registry: Rollout["tool_registry"];
  tables: Record<string, Record<string, unknown>[]>;
  trajectoryId: string;
  ticketId: string;
};

/** The correct refund rollout (reads, refund at step 3, honest claims) with `parts` replacing pieces of it. */
export function makeRollout(parts: Partial<RolloutParts> = {}): Rollout {
  const steps = parts.steps ?? [...reads(), tool("finance.issue_refund", { ...REFUND_ARGS })];
  return {
    kind: "rollout",
    trajectory_id: parts.trajectoryId ?? "t/1",
    run_id: "grpo-test",
    step: 100,
    group_id: "grpo-test/s100/g1",
    sample_index: 0,
    ticket_id: parts.ticketId ?? "T-1001",
    trajectory: {
      steps: structuredClone(steps),
      final_reply: parts.reply ?? "I have refunded 59.99 EUR to your card; it arrives in 3-5 business days.",
    },
    sandbox: {
      writes: structuredClone(parts.writes ?? [write("finance.issue_refund", { ...REFUND_ARGS }, 3)]),
      tables: structuredClone(parts.tables ?? {}),
    },
    tool_registry: structuredClone(parts.registry ?? REGISTRY),
    claims: parts.claims === undefined ? honestClaims() : structuredClone(parts.claims),
  };
}

export function anyOf(...names: string[]): ReadRequirement {
  return { any_of: names };
}
