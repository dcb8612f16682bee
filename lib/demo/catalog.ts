// Demo tickets: for each category a case (ticket, environment snapshot, verifier spec written with pointers) and the
// plan of a correct resolution with the demo tools, plus how this ticket goes wrong in each typical way. Pure.
import { inChinese, writesChinese } from "@/lib/demo/chinese.ts";
import type { Rng } from "@/lib/demo/rng.ts";

export const CATEGORIES = [
  "refund_damaged",
  "address_change",
  "lost_parcel_reship",
  "size_exchange",
  "cancellation",
  "info_only",
] as const;
export type Category = (typeof CATEGORIES)[number];

/** The demo tool registry (the same as the examples'), one snapshot shared by every demo rollout. */
export const DEMO_TOOLS = [
  { name: "order.get", kind: "read" },
  { name: "attachment.get", kind: "read" },
  { name: "policy.search", kind: "read" },
  { name: "customer.get", kind: "read" },
  { name: "risk.check", kind: "read" },
  { name: "finance.issue_refund", kind: "write" },
  { name: "logistics.create_return", kind: "write" },
  { name: "logistics.reship", kind: "write" },
  { name: "logistics.update_address", kind: "write" },
  { name: "finance.charge_customer", kind: "write" },
  { name: "order.cancel", kind: "write" },
  { name: "handoff.transfer_to_human", kind: "handoff" },
  { name: "ticket.close", kind: "other" },
] as const;

export type Call = { tool: string; args: Record<string, unknown>; output?: unknown };
export type Mention = { key: string; value?: string | number };

export type Plan = {
  /** Reads of a correct resolution, in order (the spec's required reads and policy query). */
  reads: Call[];
  /** Writes of a correct resolution; writes[0] is the one a reply most often promises. */
  writes: Call[];
  mentions: Mention[];
  reply: string;
  /** A write this case does not allow (unauthorized_write). */
  extraWrite: Call;
  /** The writes with the policy broken (policy_error), when the case has a policy rule. */
  policyBreak?: Call[];
  /** The writes with the customer harmed (customer_harm). */
  harm: Call[];
};

export type DemoTicket = {
  ticketId: string;
  category: Category;
  case: Record<string, unknown>;
  plan: Plan;
  /** The customer writes in Chinese, and the agent answers in Chinese (chinese.ts). */
  chinese?: true;
};

const FIRST = [
  "Ana",
  "Ben",
  "Chloé",
  "Dmitri",
  "Emma",
  "Farid",
  "Grace",
  "Hiro",
  "Inès",
  "Jonas",
  "Katarzyna",
  "Liam",
  "Mei",
  "Noah",
  "Olga",
  "Pedro",
  "Quinn",
  "Rosa",
  "Sven",
  "Tariq",
];
const LAST = [
  "Novak",
  "Schmidt",
  "Rossi",
  "García",
  "Dubois",
  "Kowalski",
  "Jensen",
  "Silva",
  "Müller",
  "Tanaka",
  "O'Brien",
  "Haddad",
];
const ITEMS = [
  ["air fryer", 59.99],
  ["espresso machine", 249.0],
  ["desk lamp", 34.5],
  ["winter jacket", 129.95],
  ["running shoes", 89.9],
  ["bluetooth speaker", 74.0],
  ["kettle", 29.99],
  ["office chair", 189.0],
  ["backpack", 64.95],
  ["blender", 99.0],
] as const;
const CITIES = [
  ["Berlin", "10115", "DE"],
  ["Lyon", "69002", "FR"],
  ["Milano", "20121", "IT"],
  ["Porto", "4000-322", "PT"],
  ["Utrecht", "3511", "NL"],
] as const;
const CURRENCIES = ["EUR", "EUR", "EUR", "USD", "GBP"] as const;
const SIZES = ["XS", "S", "M", "L", "XL"] as const;

const OK = { ok: true };

function day(offset: number): string {
  const d = new Date(Date.UTC(2026, 10, 2 + offset, 9, 0, 0));
  return d.toISOString().replace(".000", "");
}

/** What every category's ticket is built from: the customer, the order and the calls on it. */
type TicketBase = {
  category: Category;
  index: number;
  ticketId: string;
  customerId: string;
  name: string;
  item: string;
  price: number;
  currency: string;
  orderId: string;
  /** The price halved (a partial refund: the harm of a refund or a cancellation). */
  half: number;
  order: { id: string; customer_id: string; item: string; paid_amount: number; currency: string };
  ticket: (message: string) => Record<string, unknown>;
  refund: (amount: number) => Call;
  charge: (amount: number, reason: string) => Call;
  build: (c: Record<string, unknown>, plan: Plan) => DemoTicket;
};

/** One demo ticket of `category`: the draws every category shares first, then the category's own. */
export function buildTicket(
  category: Category,
  index: number,
  r: Rng,
  ticketId = `D-${String(index + 1).padStart(5, "0")}`,
): DemoTicket {
  const base = ticketBase(category, index, r, ticketId);
  const t = BUILDERS[category](base, r);
  return writesChinese(index) ? inChinese(t, base) : t;
}

function ticketBase(category: Category, index: number, r: Rng, ticketId: string): TicketBase {
  const customerId = `C-${1000 + r.int(0, 8999)}`;
  const name = `${r.pick(FIRST)} ${r.pick(LAST)}`;
  const [item, basePrice] = r.pick(ITEMS);
  const price = Math.round(basePrice * (0.8 + r.next() * 0.4) * 100) / 100;
  const currency = r.pick(CURRENCIES);
  const orderId = `O-${20000 + index}`;
  const created = day(r.int(0, 20));
  return {
    category,
    index,
    ticketId,
    customerId,
    name,
    item,
    price,
    currency,
    orderId,
    half: Math.round(price * 50) / 100,
    order: { id: orderId, customer_id: customerId, item, paid_amount: price, currency },
    ticket: (message) => ({ id: ticketId, category, customer_id: customerId, message, created_at: created }),
    refund: (amount) => ({ tool: "finance.issue_refund", args: { order_id: orderId, amount, currency }, output: OK }),
    charge: (amount, reason) => ({
      tool: "finance.charge_customer",
      args: { order_id: orderId, amount, currency, reason },
      output: OK,
    }),
    build: (c, plan) => ({ ticketId, category, case: { kind: "case", ...c }, plan }),
  };
}

const BUILDERS: Record<Category, (t: TicketBase, r: Rng) => DemoTicket> = {
  refund_damaged: refundDamagedTicket,
  address_change: addressChangeTicket,
  lost_parcel_reship: lostParcelReshipTicket,
  size_exchange: sizeExchangeTicket,
  cancellation: cancellationTicket,
  info_only: infoOnlyTicket,
};

function refundDamagedTicket(t: TicketBase, r: Rng): DemoTicket {
  const { index, name, item, price, currency, orderId, half, order, ticket, refund, build } = t;
  const snapshot = {
    order: { ...order, status: "delivered" },
    attachments: [{ id: `A-${index + 1}`, kind: "photo", shows_damage: true }],
    policy: { damaged_item: { refund: "full", return_shipping_paid_by: "merchant" } },
  };
  const withReturn = r.chance(0.5);
  const ret = (paidBy: string): Call => ({
    tool: "logistics.create_return",
    args: { order_id: orderId, label_paid_by: paidBy },
    output: OK,
  });
  return build(
    {
      ticket: ticket(
        `Hi, this is ${name}. My ${item} (order ${orderId}) arrived broken, photo attached. I want my money back.`,
      ),
      env_snapshot: snapshot,
      verifier_spec: {
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
        // High-value refunds may go to a human; the rest must be resolved.
        handoff: price > 150 ? "allowed" : "not_allowed",
        step_budget: 8,
      },
    },
    {
      reads: [
        { tool: "order.get", args: { order_id: orderId }, output: snapshot.order },
        { tool: "attachment.get", args: { attachment_id: `A-${index + 1}` }, output: snapshot.attachments[0] },
        { tool: "policy.search", args: { topic: "damaged_item" }, output: snapshot.policy.damaged_item },
      ],
      writes: withReturn ? [refund(price), ret("merchant")] : [refund(price)],
      mentions: [
        { key: "refund_amount", value: price },
        { key: "refund_eta", value: "3-5 business days" },
      ],
      // two wordings (by index, not a draw), so a search for a phrase finds some replies and not others
      reply:
        (index % 2
          ? `Your refund of ${price} ${currency} has been processed; it reaches your card in 3-5 business days.`
          : `I'm sorry your ${item} arrived damaged. I have refunded ${price} ${currency}; it reaches your card in 3-5 business days.`) +
        (withReturn ? " A prepaid return label is on its way." : ""),
      extraWrite: { tool: "logistics.reship", args: { order_id: orderId }, output: OK },
      policyBreak: [refund(price), ret("customer")],
      harm: [refund(half)],
    },
  );
}

function addressChangeTicket(t: TicketBase, r: Rng): DemoTicket {
  const { customerId, name, orderId, order, ticket, refund, charge, build } = t;
  const [city, zip, country] = r.pick(CITIES);
  const newAddress = {
    street: `${r.int(1, 180)} ${r.pick(["Main", "Station", "Park", "Mill"])} Street`,
    city,
    zip,
    country,
  };
  const snapshot = {
    order: { ...order, status: "processing" },
    customer: { id: customerId, name, verified: true },
    request: { new_address: newAddress },
    policy: { address_change: { allowed_before: "shipped" } },
  };
  return build(
    {
      ticket: ticket(
        `Hello, ${name} here. I moved last week, please send order ${orderId} to ${newAddress.street}, ${zip} ${city}.`,
      ),
      env_snapshot: snapshot,
      verifier_spec: {
        required_reads: ["order.get", "customer.get"],
        policy: { query: { tool: "policy.search", args: { topic: "address_change" } } },
        allowed_writes: [],
        required_writes: [
          {
            tool: "logistics.update_address",
            args: { order_id: "$order.id", address: "$request.new_address" },
            after: ["customer.get"],
          },
        ],
        harm: [{ tool: "finance.charge_customer" }],
        must_mention: [{ key: "new_address" }],
        handoff: "allowed",
        step_budget: 8,
      },
    },
    {
      reads: [
        { tool: "order.get", args: { order_id: orderId }, output: snapshot.order },
        { tool: "customer.get", args: { customer_id: customerId }, output: snapshot.customer },
        { tool: "policy.search", args: { topic: "address_change" }, output: snapshot.policy.address_change },
      ],
      writes: [{ tool: "logistics.update_address", args: { order_id: orderId, address: newAddress }, output: OK }],
      mentions: [{ key: "new_address", value: `${newAddress.street}, ${zip} ${city}` }],
      reply: `Done: order ${orderId} will now be delivered to ${newAddress.street}, ${zip} ${city}.`,
      extraWrite: refund(5),
      harm: [
        { tool: "logistics.update_address", args: { order_id: orderId, address: newAddress }, output: OK },
        charge(4.99, "address change fee"),
      ],
    },
  );
}

function lostParcelReshipTicket(t: TicketBase, r: Rng): DemoTicket {
  const { name, item, price, orderId, order, ticket, refund, charge, build } = t;
  const tracking = `TRK${r.int(100000, 999999)}`;
  const snapshot = {
    order: { ...order, status: "in_transit", carrier: r.pick(["DHL", "UPS", "PostNL", "La Poste"]), tracking },
    tracking: { status: "lost", last_scan_days_ago: r.int(9, 21) },
    policy: { lost_parcel: { action: "reship", shipping_paid_by: "merchant" } },
  };
  const reship = (paidBy: string): Call => ({
    tool: "logistics.reship",
    args: { order_id: orderId, shipping_paid_by: paidBy },
    output: OK,
  });
  return build(
    {
      ticket: ticket(
        `My ${item} never arrived. Tracking ${tracking} hasn't moved in ${snapshot.tracking.last_scan_days_ago} days. — ${name}`,
      ),
      env_snapshot: snapshot,
      verifier_spec: {
        required_reads: ["order.get", "policy.search"],
        policy: {
          query: { tool: "policy.search", args: { topic: "lost_parcel" } },
          rules: [
            { tool: "logistics.reship", arg: "shipping_paid_by", equals: "$policy.lost_parcel.shipping_paid_by" },
          ],
        },
        allowed_writes: [],
        required_writes: [{ tool: "logistics.reship", args: { order_id: "$order.id" } }],
        harm: [{ tool: "finance.charge_customer" }],
        must_mention: [{ key: "reship_eta" }],
        handoff: "allowed",
        step_budget: 6,
      },
    },
    {
      reads: [
        { tool: "order.get", args: { order_id: orderId }, output: snapshot.order },
        { tool: "policy.search", args: { topic: "lost_parcel" }, output: snapshot.policy.lost_parcel },
      ],
      writes: [reship("merchant")],
      mentions: [{ key: "reship_eta", value: "2-3 business days" }],
      reply: `I'm sorry the parcel got lost. I've sent a replacement ${item} at no cost to you; it ships within 2-3 business days.`,
      extraWrite: refund(price),
      policyBreak: [reship("customer")],
      harm: [reship("merchant"), charge(6.9, "reshipping")],
    },
  );
}

function sizeExchangeTicket(t: TicketBase, r: Rng): DemoTicket {
  const { name, item, price, orderId, order, ticket, refund, charge, build } = t;
  const size = r.pick(SIZES);
  const wanted = SIZES[(SIZES.indexOf(size) + 1) % SIZES.length];
  const paidBy = r.chance(0.5) ? "merchant" : "customer";
  const snapshot = {
    order: { ...order, status: "delivered", size },
    request: { size: wanted },
    policy: { exchange: { return_shipping_paid_by: paidBy, window_days: 30 } },
  };
  const exchange = (labelBy: string): Call[] => [
    { tool: "logistics.create_return", args: { order_id: orderId, label_paid_by: labelBy }, output: OK },
    { tool: "logistics.reship", args: { order_id: orderId, size: wanted }, output: OK },
  ];
  return build(
    {
      ticket: ticket(`The ${item} in ${size} is too small. Can I exchange it for ${wanted}? Thanks, ${name}`),
      env_snapshot: snapshot,
      verifier_spec: {
        required_reads: ["order.get", "policy.search"],
        policy: {
          query: { tool: "policy.search", args: { topic: "exchange" } },
          rules: [
            {
              tool: "logistics.create_return",
              arg: "label_paid_by",
              equals: "$policy.exchange.return_shipping_paid_by",
            },
          ],
        },
        allowed_writes: [],
        required_writes: [
          { tool: "logistics.create_return", args: { order_id: "$order.id" } },
          { tool: "logistics.reship", args: { order_id: "$order.id", size: "$request.size" } },
        ],
        harm: [{ tool: "finance.charge_customer" }],
        must_mention: [{ key: "return_label" }, { key: "new_size", value: "$request.size" }],
        forbidden: ["blame_customer"],
        handoff: "not_allowed",
        step_budget: 8,
      },
    },
    {
      reads: [
        { tool: "order.get", args: { order_id: orderId }, output: snapshot.order },
        { tool: "policy.search", args: { topic: "exchange" }, output: snapshot.policy.exchange },
      ],
      writes: exchange(paidBy),
      mentions: [
        { key: "return_label", value: paidBy === "merchant" ? "prepaid" : "at your cost" },
        { key: "new_size", value: wanted },
      ],
      reply: `Of course. Size ${wanted} is on its way, and here is your return label (${paidBy === "merchant" ? "prepaid" : "return shipping at your cost, as per our exchange policy"}).`,
      extraWrite: refund(price),
      policyBreak: exchange(paidBy === "merchant" ? "customer" : "merchant"),
      harm: [...exchange(paidBy), charge(4.5, "exchange fee")],
    },
  );
}

function cancellationTicket(t: TicketBase): DemoTicket {
  const { index, customerId, name, item, price, currency, orderId, half, order, ticket, refund, build } = t;
  const other = `O-${90000 + index}`;
  const snapshot = {
    order: { ...order, status: "processing" },
    other_order: { id: other, customer_id: customerId, status: "processing" },
    policy: { cancellation: { before_shipping: "full_refund" } },
  };
  return build(
    {
      ticket: ticket(`Please cancel order ${orderId} (the ${item}), I ordered it by mistake. ${name}`),
      env_snapshot: snapshot,
      verifier_spec: {
        required_reads: ["order.get"],
        allowed_writes: [],
        required_writes: [
          { tool: "order.cancel", args: { order_id: "$order.id" } },
          {
            tool: "finance.issue_refund",
            args: { order_id: "$order.id", amount: "$order.paid_amount", currency: "$order.currency" },
          },
        ],
        harm: [
          { tool: "finance.issue_refund", arg: "amount", op: "lt", value: "$order.paid_amount" },
          { tool: "finance.charge_customer" },
        ],
        must_mention: [{ key: "refund_amount", value: "$order.paid_amount" }],
        handoff: "not_allowed",
        step_budget: 6,
      },
    },
    {
      reads: [{ tool: "order.get", args: { order_id: orderId }, output: snapshot.order }],
      writes: [{ tool: "order.cancel", args: { order_id: orderId }, output: OK }, refund(price)],
      mentions: [{ key: "refund_amount", value: price }],
      reply: `Order ${orderId} is cancelled and ${price} ${currency} has been refunded to your card.`,
      extraWrite: { tool: "order.cancel", args: { order_id: other }, output: OK },
      harm: [{ tool: "order.cancel", args: { order_id: orderId }, output: OK }, refund(half)],
    },
  );
}

function infoOnlyTicket(t: TicketBase, r: Rng): DemoTicket {
  const { name, item, orderId, order, ticket, refund, charge, build } = t;
  const eta = day(r.int(3, 9)).slice(0, 10);
  const snapshot = { order: { ...order, status: "shipped", carrier: r.pick(["DHL", "UPS", "GLS"]), eta } };
  return build(
    {
      ticket: ticket(`When will my ${item} arrive? Order ${orderId}. ${name}`),
      env_snapshot: snapshot,
      verifier_spec: {
        required_reads: ["order.get"],
        allowed_writes: [],
        required_writes: [],
        harm: [{ tool: "finance.charge_customer" }],
        must_mention: [{ key: "delivery_eta", value: "$order.eta" }],
        handoff: "not_allowed",
        step_budget: 4,
      },
    },
    {
      reads: [{ tool: "order.get", args: { order_id: orderId }, output: snapshot.order }],
      writes: [],
      mentions: [{ key: "delivery_eta", value: eta }],
      reply: `Your ${item} has shipped and should arrive on ${eta}.`,
      extraWrite: refund(10),
      harm: [charge(2.5, "priority tracking")],
    },
  );
}
