import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { retailConversationCalls, retailRefusals } from "@/lib/import/tau2-retail.ts";
import type { Tau2Action } from "@/lib/import/tau2-schema.ts";

// A retail database in tau2-bench's shape, made up (fixtures/README.md): one customer with a gift card (balance 20),
// a credit card and PayPal; a delivered order paid by credit card, a pending order paid by gift card, a processed
// one; the kettle product with its variants.
const RETAIL_DB = JSON.parse(
  fs.readFileSync(path.join(import.meta.dirname, "fixtures", "tau2-retail-mini.json"), "utf8"),
) as typeof import("./fixtures/tau2-retail-mini.json");

const act = (name: string, args: Record<string, unknown>): Tau2Action => ({
  action_id: null,
  requestor: "assistant",
  name,
  arguments: args,
});
const refusal = (...actions: Tau2Action[]) => retailRefusals(RETAIL_DB, actions);

describe("retailRefusals: the gold writes the retail tools refuse on the database", () => {
  it("passes reads and writes the tools accept", () => {
    expect(
      refusal(
        act("find_user_id_by_email", { email: "ann@example.com" }),
        act("get_order_details", { order_id: "#W1" }),
        act("return_delivered_order_items", {
          order_id: "#W1",
          item_ids: ["k_glass"],
          payment_method_id: "credit_card_1",
        }),
        act("cancel_pending_order", { order_id: "#W2", reason: "no longer needed" }),
        act("modify_user_address", { user_id: "ann_lee_1", address1: "1 Main St" }),
      ),
    ).toEqual([null, null, null, null, null]);
  });

  it("refuses a return whose refund goes to neither the original payment method nor a gift card", () => {
    const args = { order_id: "#W1", item_ids: ["k_glass"] };
    expect(refusal(act("return_delivered_order_items", { ...args, payment_method_id: "paypal_1" }))).toEqual([
      "the refund must go to the original payment method (credit_card_1) or a gift card",
    ]);
    expect(refusal(act("return_delivered_order_items", { ...args, payment_method_id: "gift_card_1" }))).toEqual([null]);
    expect(refusal(act("return_delivered_order_items", { ...args, payment_method_id: "card_of_someone" }))).toEqual([
      "payment method card_of_someone is not the customer's",
    ]);
  });

  it("refuses an exchange of an order that is not delivered, and a cancel of one that is not pending", () => {
    const exchange = { item_ids: ["k_glass"], new_item_ids: ["k_steel"], payment_method_id: "credit_card_1" };
    expect(refusal(act("exchange_delivered_order_items", { order_id: "#W2", ...exchange }))).toEqual([
      "the order is pending, not delivered",
    ]);
    expect(refusal(act("cancel_pending_order", { order_id: "#W3", reason: "no longer needed" }))).toEqual([
      "the order is processed, not pending",
    ]);
    expect(refusal(act("cancel_pending_order", { order_id: "#W2", reason: "too expensive" }))).toEqual([
      "the reason is not one the tool accepts",
    ]);
  });

  it("refuses an item swap to an unavailable variant, or one a gift card cannot pay", () => {
    const swap = (newId: string, pm: string) =>
      act("exchange_delivered_order_items", {
        order_id: "#W1",
        item_ids: ["k_glass"],
        new_item_ids: [newId],
        payment_method_id: pm,
      });
    expect(refusal(swap("k_gone", "credit_card_1"))).toEqual(["new item k_gone not found or available"]);
    expect(refusal(swap("k_steel", "gift_card_1"))).toEqual([null]); // 10 of the card's 20
    expect(refusal(swap("k_gold", "gift_card_1"))).toEqual(["insufficient gift card balance"]); // 110 > 20
  });

  it("replays the writes in order: a write sees what the earlier ones did", () => {
    const modify = act("modify_pending_order_items", {
      order_id: "#W2",
      item_ids: ["k_glass"],
      new_item_ids: ["k_steel"],
      payment_method_id: "gift_card_1",
    });
    // Items of a pending order are modified once: the order is then "pending (item modified)".
    expect(refusal(modify, modify)).toEqual([null, "the order is pending (item modified), not pending"]);
    // Cancelling the gift-card order refunds the card (20 + 90), which then pays a swap it could not before.
    const gold = act("exchange_delivered_order_items", {
      order_id: "#W1",
      item_ids: ["k_glass"],
      new_item_ids: ["k_gold"],
      payment_method_id: "gift_card_1",
    });
    expect(refusal(act("cancel_pending_order", { order_id: "#W2", reason: "ordered by mistake" }), gold)).toEqual([
      null,
      null,
    ]);
    // The database itself is never changed.
    expect(RETAIL_DB.orders["#W2"].status).toBe("pending");
    expect(RETAIL_DB.users.ann_lee_1.payment_methods.gift_card_1.balance).toBe(20);
  });

  it("keeps a write whose order or user the database does not have: only a refusal the database shows drops it", () => {
    expect(
      refusal(
        act("cancel_pending_order", { order_id: "#W404", reason: "no longer needed" }),
        act("modify_user_address", { user_id: "nobody" }),
        act("some_new_write", { order_id: "#W3" }),
      ),
    ).toEqual([null, null, null]);
  });
});

describe("retailConversationCalls: the calls a conversation under the policy may need", () => {
  it("counts both lookups, the profile, every order of the customer, each swapped product and each write", () => {
    const exchange = act("exchange_delivered_order_items", {
      order_id: "#W1",
      item_ids: ["k_glass"],
      new_item_ids: ["k_steel"],
      payment_method_id: "credit_card_1",
    });
    // 2 lookups + 1 profile + 3 orders + 1 product (kettle) + 1 write
    expect(retailConversationCalls(RETAIL_DB, [act("get_order_details", { order_id: "#W1" }), exchange])).toBe(8);
    // A return swaps nothing: no product to look up.
    const ret = act("return_delivered_order_items", { order_id: "#W1", item_ids: ["k_glass"] });
    expect(retailConversationCalls(RETAIL_DB, [ret])).toBe(7);
    // No customer named: the lookups and the profile only.
    expect(retailConversationCalls(RETAIL_DB, [])).toBe(3);
  });
});
