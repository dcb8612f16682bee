// Rollouts with known texts for the search tests: English and Chinese replies, tool calls and tickets in two runs.
import { parseSearch, type SearchQuery } from "@/lib/search/parse.ts";
import type { IndexedSearch } from "@/lib/search/sql.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";

/** A search's text parsed, for a test that gives a valid one (throws the parser's error otherwise). */
export function parsedSearch(text: string): SearchQuery {
  const r = parseSearch(text);
  if (!r.ok) throw new Error(r.error);
  return r.query;
}

/**
 * A search's text parsed, with the words its runs' blocks may leave out (none unless given): for a test of the SQL
 * alone. A test against a database loads them (loadIndexedSearch).
 */
export function indexedSearch(text: string, omitted: string[] = []): IndexedSearch {
  return { ...parsedSearch(text), omitted: new Set(omitted) };
}

export const RUN = "srch-a";
export const OTHER = "srch-b";

type Obj = Record<string, unknown>;

/** A rollout of example 01 with its own reply, tool calls and ticket. */
export function rollout(id: string, ticket: string, reply: string, steps?: Obj[], run = RUN): Obj {
  const r = rolloutLine(id, ticket, { run, step: 3 }) as Obj & { trajectory: Obj };
  const own = steps ? { sandbox: { writes: [], tables: {} } } : {};
  return { ...r, ...own, trajectory: { ...r.trajectory, final_reply: reply, ...(steps ? { steps } : {}) } };
}
function ticketCase(id: string, message: string): Obj {
  const c = caseLine(id) as Obj & { ticket: Obj };
  c.ticket.message = message;
  return c;
}
/** A successful tool call of a rollout's steps. */
export const call = (name: string, input: Obj, output: unknown) => ({
  type: "tool",
  name,
  input,
  output,
  status: "success",
});

export const SEARCH_LINES = [
  ticketCase("T-EN", "My air fryer arrived broken, I want a refund."),
  ticketCase("T-ZH", "我的空气炸锅坏了，请帮我退款。"),
  rollout("s-en-1", "T-EN", "Good news: your refund has been processed and arrives in 3-5 business days.", [
    call("order.get", { order_id: "O-1" }, { status: "delivered" }),
    call("finance.issue_refund", { order_id: "O-1", amount: 59.99, currency: "EUR" }, "ok"),
  ]),
  rollout("s-en-2", "T-EN", "I am sorry, I cannot issue a refund for this order (100%_off coupon).", [
    call("order.get", { order_id: "O-2" }, "order not found"),
  ]),
  rollout("s-zh-1", "T-ZH", "您好，已为您安排退款，款项将在3-5个工作日内到账。", [
    call("finance.issue_refund", { order_id: "O-3", amount: 120, note: "退款原因：商品损坏" }, "ok"),
  ]),
  rollout("s-zh-2", "T-ZH", "抱歉，您的订单无法退货。Refund denied.", [call("order.get", { order_id: "O-4" }, "ok")]),
  rollout("s-other", "T-EN", "Your refund has been processed.", undefined, OTHER),
];
