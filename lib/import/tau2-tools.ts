// What each tau2-bench tool does, as Verity's registry kinds (read, write, handoff, other). tau2-bench marks its
// tools with @is_tool(ToolType.READ | WRITE | GENERIC | THINK) in src/tau2/domains/<domain>/tools.py; the tables
// below copy those marks for the agent tools of the published domains. A results file does not carry them (its
// `info.environment_info.tool_defs` is usually empty), so a tool these tables do not know is classified by its
// name: `transfer_to_human…` is the hand-off, a name that starts with a lookup verb (get_, find_, search_, list_,
// check_, lookup_, query_, read_, show_, view_, calculate, think) is a read or other, and any other name is a write —
// the cautious side, since a write the case does not expect is what the verifier flags.
import type { RegistryKind as ToolKind } from "@/lib/verifier/codes.ts";

type Table = Record<string, ToolKind>;

const SHARED: Table = { calculate: "other", think: "other", transfer_to_human_agents: "handoff" };

const DOMAINS: Record<string, Table> = {
  retail: {
    ...SHARED,
    find_user_id_by_email: "read",
    find_user_id_by_name_zip: "read",
    get_order_details: "read",
    get_product_details: "read",
    get_item_details: "read",
    get_user_details: "read",
    list_all_product_types: "read",
    cancel_pending_order: "write",
    exchange_delivered_order_items: "write",
    modify_pending_order_address: "write",
    modify_pending_order_items: "write",
    modify_pending_order_payment: "write",
    modify_user_address: "write",
    return_delivered_order_items: "write",
  },
  airline: {
    ...SHARED,
    get_reservation_details: "read",
    get_user_details: "read",
    list_all_airports: "read",
    search_direct_flight: "read",
    search_onestop_flight: "read",
    get_flight_status: "read",
    book_reservation: "write",
    cancel_reservation: "write",
    send_certificate: "write",
    update_reservation_baggages: "write",
    update_reservation_flights: "write",
    update_reservation_passengers: "write",
  },
  telecom: {
    ...SHARED,
    get_customer_by_phone: "read",
    get_customer_by_id: "read",
    get_customer_by_name: "read",
    get_details_by_id: "read",
    get_bills_for_customer: "read",
    get_data_usage: "read",
    suspend_line: "write",
    resume_line: "write",
    send_payment_request: "write",
    enable_roaming: "write",
    disable_roaming: "write",
    refuel_data: "write",
  },
};

const READ_PREFIX = /^(?:get|find|search|list|check|lookup|query|read|show|view)_/;

/** The registry kind of a tau2-bench tool of a domain. */
export function tau2ToolKind(domain: string, name: string): ToolKind {
  const known = DOMAINS[domain]?.[name] ?? SHARED[name];
  if (known) return known;
  if (/^transfer_to_human/.test(name)) return "handoff";
  if (/^(?:calculate|think)(?:_|$)/.test(name)) return "other";
  return READ_PREFIX.test(name) ? "read" : "write";
}

/** The tools a domain's table knows (every registry of that domain lists them, so a known tool is never missing). */
export function tau2DomainTools(domain: string): string[] {
  return Object.keys(DOMAINS[domain] ?? SHARED).sort();
}

/**
 * Read tools that look the same thing up by different keys (`find_user_id_by_email`, `find_user_id_by_name_zip`):
 * the part before `_by_` names what is read, so either satisfies a requirement for the other. Returns the
 * alternatives, sorted, including the tool itself.
 */
export function tau2ReadAlternatives(domain: string, name: string, seen: Iterable<string>): string[] {
  const at = name.indexOf("_by_");
  if (at < 0) return [name];
  const stem = name.slice(0, at + 4);
  const names = new Set([name]);
  for (const n of [...tau2DomainTools(domain), ...seen])
    if (n.startsWith(stem) && tau2ToolKind(domain, n) === "read") names.add(n);
  return [...names].sort();
}
