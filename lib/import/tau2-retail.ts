// The retail domain's policy (tau2-bench's data/tau2/domains/retail/policy.md) and its tools' refusals
// (src/tau2/domains/retail/tools.py), as the tau2 importer needs them to map a retail task as the policy reads
// (docs/import.md "Retail: the task as the policy reads it"). Pure: the database is read, never changed.
//
// - Evidence: a write needs the customer identified — by email or by name and zip, the two lookups the policy
//   allows — and the object it changes read first: the order for an order's cancel, modify, return or exchange
//   ("you should check its status before taking the action"), the profile for the default address.
// - Refusals: a gold write the tool would refuse on the task's database (a return to a payment method that is not
//   the original one, an exchange of a pending order) changes nothing in the database tau2-bench compares with, so
//   it is no part of the task's outcome. The gold writes are replayed in order on a working copy of the orders and
//   users they touch, so a write sees what the earlier ones did (an order's items modified once cannot be again).
// - Budget: the calls a conversation under the policy may need, counted from the database.
import type { Tau2Action } from "@/lib/import/tau2-schema.ts";

type Db = Record<string, unknown>;
type Payment = { transaction_type?: unknown; amount?: unknown; payment_method_id?: unknown };
type OrderItem = { item_id?: unknown; product_id?: unknown; price?: unknown };
type Order = { user_id?: unknown; status?: unknown; items: OrderItem[]; payment_history: Payment[] };
type PaymentMethod = { source?: unknown; balance?: unknown };
type User = { payment_methods: Record<string, PaymentMethod>; orders?: unknown };
type Variant = { available?: unknown; price?: unknown };
type Product = { variants?: Record<string, Variant> };

/** The lookups the policy accepts to authenticate the customer ("via email, or via name + zip code"). */
export const RETAIL_CUSTOMER_LOOKUPS = ["find_user_id_by_email", "find_user_id_by_name_zip"] as const;

/** For each write tool, the read that shows the object it changes. */
export const RETAIL_OBJECT_READS: Readonly<Record<string, string>> = {
  cancel_pending_order: "get_order_details",
  exchange_delivered_order_items: "get_order_details",
  modify_pending_order_address: "get_order_details",
  modify_pending_order_items: "get_order_details",
  modify_pending_order_payment: "get_order_details",
  return_delivered_order_items: "get_order_details",
  modify_user_address: "get_user_details",
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const entry = (db: Db, collection: string, id: unknown): unknown => {
  const c = db[collection];
  return typeof id === "string" && isObject(c) && Object.hasOwn(c, id) ? c[id] : undefined;
};
const num = (v: unknown): number => (typeof v === "number" ? v : Number.NaN);
const strings = (v: unknown): string[] | null =>
  Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : null;

/** The orders and users the replay has touched, copied from the database on first use. */
class WorkingCopy {
  private orders = new Map<string, Order>();
  private users = new Map<string, User>();
  constructor(readonly db: Db) {}
  /** The order, when the database has it with the fields the tools read (status, items, payment history). */
  order(id: unknown): Order | undefined {
    const o = this.copy(this.orders, "orders", id) as Order | undefined;
    return o && typeof o.status === "string" && Array.isArray(o.items) && Array.isArray(o.payment_history)
      ? o
      : undefined;
  }
  /** The user, when the database has them with their payment methods. */
  user(id: unknown): User | undefined {
    const u = this.copy(this.users, "users", id) as User | undefined;
    return u && isObject(u.payment_methods) ? u : undefined;
  }
  private copy(into: Map<string, unknown>, collection: string, id: unknown): unknown {
    if (typeof id !== "string") return undefined;
    if (!into.has(id)) {
      const e = entry(this.db, collection, id);
      if (!isObject(e)) return undefined;
      into.set(id, structuredClone(e));
    }
    return into.get(id);
  }
}

/** The database lacks what a check needs: the call is kept, since only a refusal the database shows drops it. */
const UNKNOWN = Symbol("unknown");
/** What a check returns: the tool's reason to refuse, null when the call succeeds (its effect applied), or UNKNOWN. */
type Outcome = string | null | typeof UNKNOWN;

const giftCard = (m: PaymentMethod | undefined): m is PaymentMethod => m?.source === "gift_card";
const cents = (x: number) => Math.round(x * 100) / 100;
const pending = (order: Order) => String(order.status).includes("pending");

/** The price difference of swapping `itemIds` of an order for `newIds` (tools.py's checks, in its order). */
function priceDifference(db: Db, order: Order, itemIds: string[], newIds: string[]): number | Outcome {
  const all = order.items.map((i) => i.item_id);
  for (const id of itemIds)
    if (itemIds.filter((x) => x === id).length > all.filter((x) => x === id).length) return `item ${id} not found`;
  if (itemIds.length !== newIds.length) return "the number of items to be exchanged should match";
  let diff = 0;
  for (let k = 0; k < itemIds.length; k++) {
    const item = order.items.find((i) => i.item_id === itemIds[k])!;
    const product = entry(db, "products", item.product_id) as Product | undefined;
    if (!isObject(product)) return UNKNOWN;
    const variant = product.variants?.[newIds[k]];
    if (!isObject(variant)) return `variant ${newIds[k]} not found`;
    if (variant.available !== true) return `new item ${newIds[k]} not found or available`;
    diff += num(variant.price) - num(item.price);
  }
  return cents(diff);
}

function swapItems(w: WorkingCopy, a: Record<string, unknown>, need: "pending" | "delivered"): Outcome {
  const order = w.order(a.order_id);
  if (!order) return UNKNOWN;
  if (order.status !== need) return `the order is ${String(order.status)}, not ${need}`;
  const itemIds = strings(a.item_ids);
  const newIds = strings(a.new_item_ids);
  if (!itemIds || !newIds) return UNKNOWN;
  if (need === "pending" && itemIds.some((id, k) => id === newIds[k]))
    return "the new item id should be different from the old item id";
  const diff = priceDifference(w.db, order, itemIds, newIds);
  if (typeof diff !== "number") return diff;
  const user = w.user(order.user_id);
  if (!user) return UNKNOWN;
  const method = user.payment_methods[String(a.payment_method_id)];
  if (!method) return `payment method ${String(a.payment_method_id)} is not the customer's`;
  if (giftCard(method) && num(method.balance) < diff) return "insufficient gift card balance";
  if (need === "delivered") order.status = "exchange requested";
  else {
    if (giftCard(method)) method.balance = cents(num(method.balance) - diff);
    for (let k = 0; k < itemIds.length; k++) {
      const item = order.items.find((i) => i.item_id === itemIds[k]);
      if (item) item.item_id = newIds[k];
    }
    order.status = "pending (item modified)";
  }
  return null;
}

function cancel(w: WorkingCopy, a: Record<string, unknown>): Outcome {
  const order = w.order(a.order_id);
  if (!order) return UNKNOWN;
  if (order.status !== "pending") return `the order is ${String(order.status)}, not pending`;
  if (a.reason !== "no longer needed" && a.reason !== "ordered by mistake")
    return "the reason is not one the tool accepts";
  for (const p of order.payment_history) {
    const method = w.user(order.user_id)?.payment_methods[String(p.payment_method_id)];
    if (giftCard(method)) method.balance = cents(num(method.balance) + num(p.amount));
  }
  order.status = "cancelled";
  return null;
}

function returnItems(w: WorkingCopy, a: Record<string, unknown>): Outcome {
  const order = w.order(a.order_id);
  if (!order) return UNKNOWN;
  if (order.status !== "delivered") return `the order is ${String(order.status)}, not delivered`;
  const user = w.user(order.user_id);
  if (!user) return UNKNOWN;
  const method = user.payment_methods[String(a.payment_method_id)];
  if (!method) return `payment method ${String(a.payment_method_id)} is not the customer's`;
  const original = order.payment_history[0]?.payment_method_id;
  if (!giftCard(method) && a.payment_method_id !== original)
    return `the refund must go to the original payment method (${String(original)}) or a gift card`;
  const itemIds = strings(a.item_ids) ?? [];
  const all = order.items.map((i) => i.item_id);
  if (itemIds.some((id) => itemIds.filter((x) => x === id).length > all.filter((x) => x === id).length))
    return "some item is not in the order";
  order.status = "return requested";
  return null;
}

function changePayment(w: WorkingCopy, a: Record<string, unknown>): Outcome {
  const order = w.order(a.order_id);
  if (!order) return UNKNOWN;
  if (!pending(order)) return `the order is ${String(order.status)}, not pending`;
  const user = w.user(order.user_id);
  if (!user) return UNKNOWN;
  const method = user.payment_methods[String(a.payment_method_id)];
  if (!method) return `payment method ${String(a.payment_method_id)} is not the customer's`;
  const history = order.payment_history;
  if (history.length !== 1 || history[0].transaction_type !== "payment")
    return "there should be exactly one payment for a pending order";
  if (history[0].payment_method_id === a.payment_method_id) return "the new payment method is the current one";
  const amount = num(history[0].amount);
  if (giftCard(method) && num(method.balance) < amount) return "insufficient gift card balance";
  if (giftCard(method)) method.balance = cents(num(method.balance) - amount);
  const old = user.payment_methods[String(history[0].payment_method_id)];
  if (giftCard(old)) old.balance = cents(num(old.balance) + amount);
  history.push(
    { transaction_type: "payment", amount, payment_method_id: a.payment_method_id },
    { transaction_type: "refund", amount, payment_method_id: history[0].payment_method_id },
  );
  return null;
}

const CHECKS: Record<string, (w: WorkingCopy, a: Record<string, unknown>) => Outcome> = {
  cancel_pending_order: cancel,
  exchange_delivered_order_items: (w, a) => swapItems(w, a, "delivered"),
  modify_pending_order_items: (w, a) => swapItems(w, a, "pending"),
  modify_pending_order_payment: changePayment,
  return_delivered_order_items: returnItems,
  modify_pending_order_address: (w, a) => {
    const order = w.order(a.order_id);
    if (!order) return UNKNOWN;
    return pending(order) ? null : `the order is ${String(order.status)}, not pending`;
  },
  modify_user_address: (w, a) => (w.user(a.user_id) ? null : UNKNOWN),
};

/**
 * Replays the gold actions' writes in order on the database: for each action, why the tool refuses it, or null
 * (a read, a write that succeeds, a tool these checks do not know, or one whose order, user or product is not in
 * the database — only a refusal the database shows drops a gold call).
 */
export function retailRefusals(db: Db, actions: readonly Tau2Action[]): (string | null)[] {
  const w = new WorkingCopy(db);
  return actions.map((a) => {
    const check = CHECKS[a.name];
    const out = check ? check(w, a.arguments) : null;
    return out === UNKNOWN ? null : out;
  });
}

/** The customers the gold actions concern: the users they name, and the users of the orders they name. */
function customers(db: Db, actions: readonly Tau2Action[]): Set<string> {
  const ids = new Set<string>();
  for (const a of actions) {
    if (isObject(entry(db, "users", a.arguments.user_id))) ids.add(a.arguments.user_id as string);
    const order = entry(db, "orders", a.arguments.order_id);
    if (isObject(order) && isObject(entry(db, "users", order.user_id))) ids.add(order.user_id as string);
  }
  return ids;
}

/**
 * The tool calls a conversation under the policy may need for these gold actions (the ones that can succeed):
 * both customer lookups (email first, name and zip when the customer has no email to give), the profile, every
 * order of the customer (the customer names an order by what is in it, so the agent reads them to find it), the
 * details of each product whose items a write swaps (its available options), and the writes themselves.
 */
export function retailConversationCalls(db: Db, actions: readonly Tau2Action[]): number {
  let orders = 0;
  for (const id of customers(db, actions)) orders += strings((entry(db, "users", id) as User).orders)?.length ?? 0;
  const products = new Set<string>();
  let writes = 0;
  for (const a of actions) {
    if (Object.hasOwn(RETAIL_OBJECT_READS, a.name)) writes++;
    if (!a.arguments.new_item_ids) continue;
    const order = entry(db, "orders", a.arguments.order_id) as Order | undefined;
    for (const id of strings(a.arguments.item_ids) ?? []) {
      const item =
        isObject(order) && Array.isArray(order.items) ? order.items.find((i) => i.item_id === id) : undefined;
      if (typeof item?.product_id === "string") products.add(item.product_id);
    }
  }
  return RETAIL_CUSTOMER_LOOKUPS.length + 1 + orders + products.size + writes;
}
