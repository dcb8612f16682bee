// The mapping rules of a retail task (docs/import.md "Retail: the task as the policy reads it"), each checked on the
// spec it writes and on how the verifier then scores a conversation against it.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mapTau2Task } from "@/lib/import/tau2-case.ts";
import { mapTau2Simulation, parseTau2Simulation } from "@/lib/import/tau2-rollout.ts";
import { caseSchema, rolloutSchema, type VerifierScoreRecord } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

const DB = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "fixtures", "tau2-retail-mini.json"), "utf8"));

type Call = [name: string, args: Record<string, unknown>, error?: boolean];
const byNameZip: Call = ["find_user_id_by_name_zip", { first_name: "Ann", last_name: "Lee", zip: "10001" }];
const byEmail: Call = ["find_user_id_by_email", { email: "ann@example.com" }];
const profile: Call = ["get_user_details", { user_id: "ann_lee_1" }];
const order1: Call = ["get_order_details", { order_id: "#W1" }];
const product: Call = ["get_product_details", { product_id: "kettle" }];
const returnTo = (pm: string): Call => [
  "return_delivered_order_items",
  { order_id: "#W1", item_ids: ["k_glass"], payment_method_id: pm },
];
const failed = ([name, args]: Call): Call => [name, args, true];
const transfer: Call = ["transfer_to_human_agents", { summary: "wants a refund the tools cannot make" }];

function task(id: string, gold: Call[], rewardBasis = ["DB", "COMMUNICATE"]) {
  return {
    id,
    user_scenario: { instructions: { domain: "retail", reason_for_call: "Return the kettle of order #W1." } },
    evaluation_criteria: {
      actions: gold.map(([name, args], k) => ({ action_id: `${id}_${k}`, name, arguments: args })),
      communicate_info: [],
      reward_basis: rewardBasis,
    },
  };
}

function mapped(t: ReturnType<typeof task>) {
  const m = mapTau2Task(t, "tasks[0]", DB, null);
  if (!m.ok) throw new Error(JSON.stringify(m.issue));
  return m.mapped;
}

function spec(t: ReturnType<typeof task>) {
  return (mapped(t).case as { verifier_spec: Record<string, unknown> }).verifier_spec;
}

/** Scores a conversation that makes these calls (each answered, as a failure when marked) against the task's case. */
function score(t: ReturnType<typeof task>, calls: Call[]): VerifierScoreRecord {
  const m = mapped(t);
  const messages = calls.flatMap(([name, args, error], k) => [
    { role: "assistant", content: null, tool_calls: [{ id: `c${k}`, name, arguments: args }] },
    { role: "tool", id: `c${k}`, content: error ? "Error: refused" : "{}", error: error ?? false },
  ]);
  messages.push({ role: "assistant", content: "Done.", tool_calls: [] } as never);
  const p = parseTau2Simulation({ task_id: t.id, trial: 0, messages }, "simulations[0]");
  if (!p.ok) throw new Error(JSON.stringify(p.issue));
  const r = mapTau2Simulation(p.sim, "simulations[0]", { run: "r", step: 0, ticketId: m.ticketId, domain: "retail" });
  if (!r.ok) throw new Error(JSON.stringify(r.issue));
  return scoreRollout(rolloutSchema.parse(r.rollout), caseSchema.parse(m.case));
}
const guardrails = (r: VerifierScoreRecord) => (r.status === "scored" ? r.guardrails.map((g) => g.code) : null);

// The gold path of a return with every read it happened to make, then a transfer (tau2-bench's task 26 in shape).
const returnTask = task("r1", [byNameZip, profile, order1, product, returnTo("credit_card_1"), transfer]);

describe("retail: the customer is identified by any lookup the policy allows", () => {
  it("requires one of the two lookups, whichever the gold path made", () => {
    expect(spec(returnTask).required_reads).toEqual([
      { any_of: ["find_user_id_by_email", "find_user_id_by_name_zip"] },
    ]);
  });

  it("passes a conversation that finds the customer by email where the gold path used name and zip", () => {
    const r = score(returnTask, [byEmail, order1, returnTo("credit_card_1")]);
    expect(r).toMatchObject({ status: "scored", reward: 1, guardrails: [] });
  });

  it("caps a write made without identifying the customer (the user id taken from the customer's word)", () => {
    const r = score(returnTask, [profile, order1, returnTo("credit_card_1")]);
    expect(guardrails(r)).toEqual(["missing_evidence"]);
    expect(r.reward).toBe(0.55);
  });
});

describe("retail: the object a write changes is read before it", () => {
  it("asks each write for the read of its object — the order, or the profile for the default address", () => {
    const t = task("r2", [byEmail, returnTo("credit_card_1"), ["modify_user_address", { user_id: "ann_lee_1" }]]);
    const writes = spec(t).required_writes as { tool: string; after?: unknown }[];
    expect(writes.map((w) => [w.tool, w.after])).toEqual([
      ["return_delivered_order_items", ["get_order_details"]],
      ["modify_user_address", ["get_user_details"]],
    ]);
  });

  it("does not ask for the gold path's other reads (the profile, the product) before a return", () => {
    expect(score(returnTask, [byNameZip, order1, returnTo("credit_card_1")]).reward).toBe(1);
  });

  it("caps a write of an order that was not read first", () => {
    const r = score(returnTask, [byNameZip, profile, returnTo("credit_card_1"), order1]);
    expect(guardrails(r)).toEqual(["missing_evidence"]);
  });
});

describe("retail: gold calls the tools refuse on the task's database are left out", () => {
  // The gold path returns to PayPal, which is not the original payment method: the tool refuses (task 12 in shape).
  const refusedTask = task("r3", [byEmail, profile, order1, returnTo("paypal_1"), transfer]);

  it("neither requires nor allows the refused write, and lists it on the ticket with the tool's reason", () => {
    const m = mapped(refusedTask);
    const c = m.case as { ticket: Record<string, unknown>; verifier_spec: Record<string, unknown> };
    expect(c.verifier_spec.required_writes).toEqual([]);
    expect(c.verifier_spec.allowed_writes).toEqual([]);
    expect(c.ticket.tau2_refused_actions).toEqual([
      {
        action_id: "r3_3",
        name: "return_delivered_order_items",
        reason: "the refund must go to the original payment method (credit_card_1) or a gift card",
      },
    ]);
  });

  it("passes the agent whose attempt the tool refused, and requires only the gold writes that can succeed", () => {
    expect(score(refusedTask, [byEmail, order1, failed(returnTo("paypal_1")), transfer]).reward).toBe(1);
    // An exchange of the pending order is refused; the modification of its items that follows is not.
    const swap = {
      order_id: "#W2",
      item_ids: ["k_glass"],
      new_item_ids: ["k_steel"],
      payment_method_id: "gift_card_1",
    };
    const t = task("r4", [byEmail, ["exchange_delivered_order_items", swap], ["modify_pending_order_items", swap]]);
    expect((spec(t).required_writes as { tool: string }[]).map((w) => w.tool)).toEqual(["modify_pending_order_items"]);
    const order2: Call = ["get_order_details", { order_id: "#W2" }];
    expect(score(t, [byEmail, order2, ["modify_pending_order_items", swap]]).reward).toBe(1);
  });
});

describe("a hand-off is allowed where tau2-bench does not judge it", () => {
  it("allows, not requires, the gold path's transfer after a write: the agent may or may not hand off", () => {
    expect(spec(returnTask).handoff).toBe("allowed");
    expect(score(returnTask, [byEmail, order1, returnTo("credit_card_1")]).reward).toBe(1);
    expect(score(returnTask, [byEmail, order1, returnTo("credit_card_1"), transfer]).reward).toBe(1);
  });

  it("allows a hand-off on a task whose gold path has none", () => {
    const t = task("r5", [byEmail, order1, returnTo("credit_card_1")]);
    expect(spec(t).handoff).toBe("allowed");
    expect(score(t, [byEmail, order1, returnTo("credit_card_1"), transfer]).reward).toBe(1);
  });

  it("requires it when the gold path changes nothing and hands off, or when tau2-bench judges the gold actions", () => {
    expect(spec(task("r6", [byEmail, profile, transfer])).handoff).toBe("required");
    expect(spec(task("r7", [byEmail, order1, returnTo("credit_card_1"), transfer], ["ACTION"])).handoff).toBe(
      "required",
    );
  });
});

describe("retail: the step budget is generous enough for a real conversation", () => {
  it("is 2 · the calls a conversation under the policy may need + 2 when that exceeds the gold path", () => {
    // 2 lookups + the profile + the customer's 3 orders + 1 write = 7 calls; the gold path is 3: 2 · 7 + 2.
    const t = task("r8", [byEmail, order1, returnTo("credit_card_1")]);
    expect(spec(t).step_budget).toBe(16);
    // A conversation that tries email, then name and zip, reads the profile and every order: still within budget.
    const order: (id: string) => Call = (id) => ["get_order_details", { order_id: id }];
    const calls: Call[] = [failed(byEmail), byNameZip, profile, order("#W3"), order("#W2"), order1, product];
    const r = score(t, [...calls, ["calculate", { expression: "90" }], returnTo("credit_card_1")]);
    expect(r.status === "scored" && r.subscores.efficiency).toBe(1);
  });

  it("is 2 · the gold path + 2 when the gold path is the longer", () => {
    const reads = Array.from({ length: 8 }, (): Call => order1);
    expect(spec(task("r9", [byEmail, ...reads, returnTo("credit_card_1")])).step_budget).toBe(2 * 10 + 2);
  });
});
