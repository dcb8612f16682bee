import { describe, expect, it } from "vitest";
import { mapTau2Task } from "@/lib/import/tau2-case.ts";
import { mapTau2Simulation, parseTau2Simulation } from "@/lib/import/tau2-rollout.ts";
import { caseSchema, rolloutSchema } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

type Mapped = Record<string, unknown> & {
  trajectory: { steps: unknown[]; final_reply: string; termination_reason?: string };
  sandbox: unknown;
  tool_registry: { name: string; kind: string }[];
};

const who = { run: "tau2-sample", step: 0, ticketId: "tau2/retail/5", domain: "retail" };

const call = (id: string, name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, name, arguments: args, requestor: "assistant" }],
  ...extra,
});
const answer = (id: string, content: string, error = false) => ({
  role: "tool",
  id,
  content,
  requestor: "assistant",
  error,
});

const simulation = {
  id: "sim-1",
  task_id: "5",
  trial: 2,
  termination_reason: "user_stop",
  reward_info: { reward: 1.0, db_check: { db_match: true } },
  messages: [
    { role: "assistant", content: "Hi! How can I help you today?" },
    { role: "user", content: "I want to return my water bottle; I am mei_kovacs_8020." },
    call("c1", "get_order_details", { order_id: "#W6390527" }),
    answer("c1", '{"order_id": "#W6390527", "status": "delivered"}'),
    // A refused write is a failed step, not a sandbox write.
    call("c2", "return_delivered_order_items", { order_id: "#W6390527", item_ids: ["1"], payment_method_id: "x" }),
    answer("c2", "Error: Payment method not found", true),
    // Two calls in one message, answered by one MultiToolMessage.
    {
      role: "assistant",
      content: "Let me do that.",
      tool_calls: [
        {
          id: "c3",
          name: "return_delivered_order_items",
          arguments: { order_id: "#W6390527", item_ids: ["8538875209"], payment_method_id: "paypal_7644869" },
        },
        { id: "c4", name: "calculate", arguments: { expression: "45.13" } },
      ],
    },
    {
      role: "tool",
      tool_messages: [
        { role: "tool", id: "c3", content: '{"status": "return requested"}', error: false },
        { role: "tool", id: "c4", content: "45.13", error: false },
      ],
    },
    // The customer's own device call (telecom) is the user's step, not the agent's.
    {
      role: "user",
      content: null,
      tool_calls: [{ id: "u1", name: "toggle_airplane_mode", arguments: {}, requestor: "user" }],
    },
    { role: "tool", id: "u1", content: "Airplane mode off", requestor: "user", error: false },
    { role: "assistant", content: "Your return is requested; the refund of 45.13 goes to PayPal." },
    { role: "user", content: "Thanks! ###STOP###" },
  ],
};

function mapped() {
  const p = parseTau2Simulation(simulation, "simulations[0]");
  if (!p.ok) throw new Error(JSON.stringify(p.issue));
  const m = mapTau2Simulation(p.sim, "simulations[0]", who);
  if (!m.ok) throw new Error(JSON.stringify(m.issue));
  return m.rollout as Mapped;
}

describe("mapTau2Simulation", () => {
  it("turns messages into LLM and tool steps in order, tool answers matched by call id", () => {
    const r = mapped();
    expect(r.trajectory.steps).toEqual([
      { type: "llm", name: "assistant", output: "Hi! How can I help you today?" },
      { type: "llm", name: "user", output: "I want to return my water bottle; I am mei_kovacs_8020." },
      {
        type: "tool",
        name: "get_order_details",
        input: { order_id: "#W6390527" },
        output: { order_id: "#W6390527", status: "delivered" },
        status: "success",
      },
      {
        type: "tool",
        name: "return_delivered_order_items",
        input: { order_id: "#W6390527", item_ids: ["1"], payment_method_id: "x" },
        output: "Error: Payment method not found",
        status: "failed",
      },
      { type: "llm", name: "assistant", output: "Let me do that." },
      {
        type: "tool",
        name: "return_delivered_order_items",
        input: { order_id: "#W6390527", item_ids: ["8538875209"], payment_method_id: "paypal_7644869" },
        output: { status: "return requested" },
        status: "success",
      },
      { type: "tool", name: "calculate", input: { expression: "45.13" }, output: "45.13", status: "success" },
      {
        type: "llm",
        name: "user",
        tool_call: { name: "toggle_airplane_mode", arguments: {} },
        output: "Airplane mode off",
      },
      { type: "llm", name: "assistant", output: "Your return is requested; the refund of 45.13 goes to PayPal." },
      { type: "llm", name: "user", output: "Thanks! ###STOP###" },
    ]);
    expect(r.trajectory.final_reply).toBe("Your return is requested; the refund of 45.13 goes to PayPal.");
    expect(r.trajectory.termination_reason).toBe("user_stop");
  });

  it("makes only the successful write calls sandbox writes, in order, with their step", () => {
    expect(mapped().sandbox).toEqual({
      writes: [
        {
          tool: "return_delivered_order_items",
          args: { order_id: "#W6390527", item_ids: ["8538875209"], payment_method_id: "paypal_7644869" },
          step: 5,
        },
      ],
      tables: {},
    });
  });

  it("carries the identity, tau2-bench's reward as trained_reward, and a registry of the domain's tools", () => {
    const r = mapped();
    expect(r).toMatchObject({
      kind: "rollout",
      trajectory_id: "tau2-sample/5/2",
      run_id: "tau2-sample",
      step: 0,
      group_id: "tau2-sample/s0/tau2/retail/5",
      sample_index: 2,
      ticket_id: "tau2/retail/5",
      claims: null,
      trained_reward: 1,
    });
    const kinds = Object.fromEntries(r.tool_registry.map((t) => [t.name, t.kind]));
    expect(kinds).toMatchObject({
      get_order_details: "read",
      return_delivered_order_items: "write",
      calculate: "other",
      transfer_to_human_agents: "handoff",
    });
    expect(kinds.toggle_airplane_mode).toBeUndefined();
    expect(rolloutSchema.parse(r).trained_reward).toBe(1);
  });

  it("a rollout that does what the gold actions do scores 1 against the mapped case", () => {
    const task = {
      id: "5",
      user_scenario: { instructions: "Return the water bottle of order #W6390527." },
      evaluation_criteria: {
        actions: [
          { action_id: "0", name: "get_order_details", arguments: { order_id: "#W6390527" } },
          {
            action_id: "1",
            name: "return_delivered_order_items",
            arguments: { order_id: "#W6390527", item_ids: ["8538875209"], payment_method_id: "paypal_7644869" },
          },
        ],
      },
    };
    const db = {
      orders: {
        "#W6390527": { order_id: "#W6390527", user_id: "u1", items: [{ item_id: "8538875209" }] },
      },
      users: { u1: { user_id: "u1", payment_methods: { paypal_7644869: { id: "paypal_7644869" } } } },
    };
    const c = mapTau2Task(task, "tasks[0]", db, "retail");
    if (!c.ok) throw new Error(JSON.stringify(c.issue));
    // The retail policy asks for the customer identified first: the agent looks them up by email.
    const rollout = mapped();
    rollout.trajectory.steps.unshift({
      type: "tool",
      name: "find_user_id_by_email",
      input: { email: "mei@example.com" },
      output: "u1",
      status: "success",
    });
    for (const w of (rollout.sandbox as { writes: { step: number }[] }).writes) w.step++;
    const record = scoreRollout(rolloutSchema.parse(rollout), caseSchema.parse(c.mapped.case));
    expect(record).toMatchObject({ status: "scored", reward: 1, guardrails: [] });
  });

  it("a simulation without reward_info has trained_reward null", () => {
    const p = parseTau2Simulation({ ...simulation, reward_info: null }, "simulations[1]");
    if (!p.ok) throw new Error("parse");
    const m = mapTau2Simulation(p.sim, "simulations[1]", who);
    expect(m.ok && m.rollout.trained_reward).toBeNull();
  });

  it("names the JSON path of a bad field", () => {
    const bad = structuredClone(simulation) as { messages: Record<string, unknown>[] };
    (bad.messages[4].tool_calls as Record<string, unknown>[])[0].arguments = "order_id=#W6390527";
    const p = parseTau2Simulation(bad, "simulations[12]");
    if (!p.ok) throw new Error("parse");
    expect(mapTau2Simulation(p.sim, "simulations[12]", who)).toEqual({
      ok: false,
      issue: { path: "simulations[12].messages[4].tool_calls[0].arguments", message: "expected an object" },
    });
    const noTask: Record<string, unknown> = { ...simulation };
    delete noTask.task_id;
    const q = parseTau2Simulation(noTask, "simulations[3]");
    expect(q.ok ? null : q.issue.path).toBe("simulations[3].task_id");
    const r = parseTau2Simulation({ ...simulation, reward_info: { reward: "1" } }, "simulations[4]");
    expect(r.ok ? null : r.issue).toEqual({
      path: "simulations[4].reward_info.reward",
      message: "expected tau2-bench's reward, a number",
    });
  });
});
