import { describe, expect, it } from "vitest";
import { mapTau2Task, snapshotFor } from "@/lib/import/tau2-case.ts";
import { caseSchema } from "@/lib/verifier/schema.ts";
import { resolveSpecValues } from "@/lib/verifier/pointers.ts";

// A retail-shaped database (collections keyed by id), small enough to check by eye.
const retailDb = {
  users: {
    mei_kovacs_8020: {
      user_id: "mei_kovacs_8020",
      address: { zip: "28236" },
      payment_methods: { paypal_7644869: { source: "paypal", id: "paypal_7644869" } },
      orders: ["#W6390527"],
    },
    someone_else_1: { user_id: "someone_else_1", orders: [] },
  },
  orders: {
    "#W6390527": {
      order_id: "#W6390527",
      user_id: "mei_kovacs_8020",
      status: "delivered",
      items: [{ item_id: "8538875209", product_id: "6817146515", price: 45.13 }],
    },
    "#W0000001": { order_id: "#W0000001", user_id: "someone_else_1", items: [] },
  },
  products: { "6817146515": { product_id: "6817146515", name: "Water Bottle" }, "1": { product_id: "1" } },
};

const retailTask = {
  id: "5",
  description: { purpose: "returns", relevant_policies: null },
  user_scenario: {
    persona: null,
    instructions: {
      domain: "retail",
      reason_for_call: "You want to return the water bottle from order #W6390527.",
      known_info: "You are mei_kovacs_8020 in zipcode 28236.",
      unknown_info: "You do not remember your email address",
      task_instructions: ".",
    },
  },
  ticket: null,
  evaluation_criteria: {
    actions: [
      { action_id: "5_0", name: "find_user_id_by_name_zip", arguments: { first_name: "Mei", zip: "28236" } },
      { action_id: "5_1", name: "get_order_details", arguments: { order_id: "#W6390527" } },
      {
        action_id: "5_2",
        name: "return_delivered_order_items",
        arguments: { order_id: "#W6390527", item_ids: ["8538875209"], payment_method_id: "paypal_7644869" },
      },
      { action_id: "5_3", name: "get_user_details", arguments: { user_id: "mei_kovacs_8020" } },
      { action_id: "5_4", name: "calculate", arguments: { expression: "1 + 1" } },
      {
        action_id: "5_5",
        name: "modify_user_address",
        arguments: { user_id: "mei_kovacs_8020", address1: "$1 Main St", zip: "28236" },
        compare_args: ["user_id", "address1"],
      },
    ],
    communicate_info: ["45.13", "45.13"],
    reward_basis: ["DB", "COMMUNICATE"],
  },
};

describe("mapTau2Task", () => {
  const mapped = mapTau2Task(retailTask, "tasks[0]", retailDb, null);
  if (!mapped.ok) throw new Error(JSON.stringify(mapped.issue));
  const c = mapped.mapped.case as {
    ticket: Record<string, unknown>;
    env_snapshot: Record<string, unknown>;
    verifier_spec: Record<string, unknown>;
  };

  it("is a valid case whose ticket is the user scenario, under tau2/<domain>/<task id>", () => {
    expect(caseSchema.safeParse(c).success).toBe(true);
    expect(mapped.mapped).toMatchObject({ taskId: "5", ticketId: "tau2/retail/5", domain: "retail" });
    expect(c.ticket).toEqual({
      id: "tau2/retail/5",
      category: "retail",
      message:
        "You want to return the water bottle from order #W6390527.\nKnown info: You are mei_kovacs_8020 in zipcode 28236.\nUnknown info: You do not remember your email address",
      tau2_task_id: "5",
      purpose: "returns",
      tau2_reward_basis: ["DB", "COMMUNICATE"],
    });
  });

  it("snapshots the entities the actions and the ticket name, and what those name in turn — nothing else", () => {
    expect(Object.keys(c.env_snapshot)).toEqual(["users", "orders", "products"]);
    expect(Object.keys(c.env_snapshot.users as object)).toEqual(["mei_kovacs_8020"]);
    expect(Object.keys(c.env_snapshot.orders as object)).toEqual(["#W6390527"]);
    // The product is named only by the order: one step further.
    expect(Object.keys(c.env_snapshot.products as object)).toEqual(["6817146515"]);
  });

  it("retail: requires the customer identified and each write's object read first (tau2-spec.test.ts has the rules)", () => {
    const spec = c.verifier_spec;
    expect(spec.required_reads).toEqual([{ any_of: ["find_user_id_by_email", "find_user_id_by_name_zip"] }]);
    const writes = spec.required_writes as { tool: string; after?: unknown }[];
    expect(writes.map((w) => [w.tool, w.after])).toEqual([
      ["return_delivered_order_items", ["get_order_details"]],
      ["modify_user_address", ["get_user_details"]],
    ]);
  });

  it("writes the gold write arguments as pointers into the snapshot, literals where nothing holds them", () => {
    const writes = c.verifier_spec.required_writes as { args: Record<string, unknown> }[];
    expect(writes[0].args).toEqual({
      order_id: "$orders.#W6390527.order_id",
      item_ids: ["$orders.#W6390527.items.0.item_id"],
      payment_method_id: "$users.mei_kovacs_8020.payment_methods.paypal_7644869.id",
    });
    // compare_args keeps only the compared arguments; a literal starting with $ is escaped.
    expect(writes[1].args).toEqual({ user_id: "$users.mei_kovacs_8020.user_id", address1: "$$1 Main St" });
    // Resolved against the snapshot, the pointers give back the gold arguments.
    const resolved = resolveSpecValues(c.verifier_spec, c.env_snapshot);
    expect(resolved.unresolved).toEqual([]);
    expect((resolved.value.required_writes as { args: unknown }[]).map((w) => w.args)).toEqual([
      retailTask.evaluation_criteria.actions[2].arguments,
      { user_id: "mei_kovacs_8020", address1: "$1 Main St" },
    ]);
    expect(c.verifier_spec.allowed_writes).toEqual(
      (c.verifier_spec.required_writes as { tool: string; args: unknown }[]).map(({ tool, args }) => ({ tool, args })),
    );
  });

  it("makes communicate_info must-mention items, a hand-off allowed, a budget of 2 · calls + 2", () => {
    expect(c.verifier_spec.must_mention).toEqual([
      { key: "communicate:45.13", value: "45.13" },
      { key: "communicate:45.13#1", value: "45.13" },
    ]);
    expect(c.verifier_spec.handoff).toBe("allowed");
    // 6 gold actions; the policy's count is 2 lookups + the profile + 1 order + 2 writes = 6 as well.
    expect(c.verifier_spec.step_budget).toBe(14);
  });

  it("an airline-style task: the gold path's reads, nested write arguments, user actions left out", () => {
    const db = {
      users: { sara_doe_496: { user_id: "sara_doe_496", payment_methods: { gift_card_1: { id: "gift_card_1" } } } },
      flights: { HAT001: { flight_number: "HAT001", origin: "SFO", destination: "JFK" } },
      reservations: {},
    };
    const task = {
      id: 7,
      user_scenario: { instructions: "You are sara_doe_496 and want a one-way flight SFO to JFK." },
      evaluation_criteria: {
        actions: [
          { action_id: "a", name: "get_user_details", arguments: { user_id: "sara_doe_496" } },
          {
            action_id: "b",
            name: "search_direct_flight",
            arguments: { origin: "SFO", destination: "JFK", date: "2024-05-20" },
          },
          {
            action_id: "c",
            name: "book_reservation",
            arguments: {
              user_id: "sara_doe_496",
              flights: [{ flight_number: "HAT001", date: "2024-05-20" }],
              passengers: [{ first_name: "Sara", last_name: "Doe", dob: "1990-01-01" }],
              payment_methods: [{ payment_id: "gift_card_1", amount: 100 }],
              total_baggages: 0,
              insurance: "no",
            },
          },
          { action_id: "d", requestor: "user", name: "toggle_airplane_mode", arguments: {} },
          { action_id: "e", name: "transfer_to_human_agents", arguments: { summary: "wants a refund" } },
        ],
      },
    };
    const m = mapTau2Task(task, "tasks[3]", db, "airline");
    if (!m.ok) throw new Error(JSON.stringify(m.issue));
    const spec = (m.mapped.case as { verifier_spec: Record<string, unknown> }).verifier_spec;
    expect(m.mapped.ticketId).toBe("tau2/airline/7");
    expect(spec.required_reads).toEqual(["get_user_details", "search_direct_flight"]);
    expect(spec.required_writes).toEqual([
      {
        tool: "book_reservation",
        args: {
          user_id: "$users.sara_doe_496.user_id",
          flights: [{ flight_number: "$flights.HAT001.flight_number", date: "2024-05-20" }],
          passengers: [{ first_name: "Sara", last_name: "Doe", dob: "1990-01-01" }],
          payment_methods: [{ payment_id: "$users.sara_doe_496.payment_methods.gift_card_1.id", amount: 100 }],
          total_baggages: 0,
          insurance: "no",
        },
      },
    ]);
    expect(spec.handoff).toBe("allowed"); // the gold hand-off follows a write: tau2-bench does not judge it
    expect(spec.step_budget).toBe(10); // four agent actions; the user's own is not the agent's
    expect(caseSchema.safeParse(m.mapped.case).success).toBe(true);
  });

  it("a telecom-style database of arrays: elements picked by their id fields", () => {
    const db = {
      customers: [
        { customer_id: "C1001", full_name: "Ann", line_ids: ["L1"] },
        { customer_id: "C1002", full_name: "Bob", line_ids: ["L2"] },
      ],
      lines: [
        { line_id: "L1", phone_number: "555-123-2002", status: "Active" },
        { line_id: "L2", phone_number: "555-000-0000", status: "Active" },
      ],
    };
    expect(snapshotFor(db, new Set(["555-123-2002"]))).toEqual({
      customers: [db.customers[0]],
      lines: [db.lines[0]],
    });
  });

  it("names the field of a bad task", () => {
    const bad = { ...retailTask, evaluation_criteria: { actions: [{ name: "get_order_details", arguments: "x" }] } };
    expect(mapTau2Task(bad, "tasks[2]", retailDb, null)).toEqual({
      ok: false,
      issue: { path: "tasks[2].evaluation_criteria.actions[0].arguments", message: "expected an object" },
    });
    const noScenario: Record<string, unknown> = { ...retailTask };
    delete noScenario.user_scenario;
    const r = mapTau2Task(noScenario, "tasks[4]", retailDb, null);
    expect(r.ok ? null : r.issue.path).toBe("tasks[4].user_scenario");
  });
});
