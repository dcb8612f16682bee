// A tau2-bench task's evaluation criteria → a Verity verifier spec (formats.md §1; docs/import.md "Task → case").
// Pure. The gold actions are one reference trajectory; the spec keeps what the task asks of any trajectory:
//
// - writes: the gold writes, in order, with their string arguments as pointers into the snapshot — less those the
//   tool refuses on the task's database (retail: lib/import/tau2-retail.ts), which change nothing tau2-bench
//   compares; they are the only writes allowed;
// - evidence: retail as its policy reads (the customer identified by an allowed lookup, the changed object read
//   before each write); another domain, the gold path's reads (before the first write, or between two writes);
// - hand-off: tau2-bench judges the end state, which a transfer does not change, so a hand-off is `allowed` —
//   `required` only when tau2-bench judges the gold actions (reward basis ACTION) or when the gold path changes
//   nothing and hands off (then the transfer is what the task asks);
// - step budget: 2 · the calls the task may need + 2 (retail: the larger of the gold path and the calls a
//   conversation under the policy may make; another domain: the gold path).
import {
  RETAIL_CUSTOMER_LOOKUPS,
  RETAIL_OBJECT_READS,
  retailConversationCalls,
  retailRefusals,
} from "@/lib/import/tau2-retail.ts";
import { tau2ReadAlternatives, tau2ToolKind } from "@/lib/import/tau2-tools.ts";
import type { Tau2Action } from "@/lib/import/tau2-schema.ts";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export type GoldCriteria = {
  actions: readonly Tau2Action[];
  communicate: readonly string[];
  rewardBasis: readonly string[];
};

/** A gold action the tool refuses on the task's database: left out of the spec, kept on the ticket. */
export type RefusedAction = { action_id: string | null; name: string; reason: string };

type Requirement = string | { any_of: string[] };
type SpecWrite = { tool: string; args: Record<string, unknown>; after?: Requirement[] };

// ---------- pointers ----------

/**
 * value → the shortest pointer into the snapshot that holds it (breadth first, in key order; object keys with a
 * `.` cannot be spelled in a pointer and are not entered). Only strings of at least 3 characters: a number or a
 * short word in the arguments is kept literal rather than tied to an unrelated field that happens to equal it.
 */
function pointerIndex(snapshot: Record<string, unknown>): Map<string, string> {
  const index = new Map<string, string>();
  let level: [string[], unknown][] = [[[], snapshot]];
  while (level.length) {
    const next: [string[], unknown][] = [];
    for (const [path, v] of level) {
      if (typeof v === "string") {
        if (v.length >= 3 && !index.has(v)) index.set(v, "$" + path.join("."));
      } else if (Array.isArray(v)) v.forEach((x, i) => next.push([[...path, String(i)], x]));
      else if (isObject(v))
        for (const [k, x] of Object.entries(v)) if (k && !k.includes(".")) next.push([[...path, k], x]);
    }
    level = next;
  }
  return index;
}

/** A literal string of the spec that starts with `$` is written `$$…` (formats.md §1). */
const literal = (s: string) => (s.startsWith("$") ? "$" + s : s);

function pointerize(v: unknown, index: Map<string, string>): unknown {
  if (typeof v === "string") return index.get(v) ?? literal(v);
  if (Array.isArray(v)) return v.map((x) => pointerize(x, index));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, pointerize(x, index)]));
  return v;
}

function mentionKey(info: string, k: number, used: Set<string>): string {
  const slug = info
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 60);
  let key = `communicate:${slug || k}`;
  if (used.has(key)) key = `${key}#${k}`;
  used.add(key);
  return key;
}

// ---------- evidence ----------

/**
 * The gold path's reads: those before its first write must precede every write (the required reads, returned),
 * those between two writes the later one (its `after`, set on `writes`). A read after the last write is evidence
 * for nothing the agent did, unless the task has no write at all. Read tools that look the same thing up by
 * different keys are one `any_of`.
 */
function goldPathEvidence(domain: string, gold: readonly Tau2Action[], writes: SpecWrite[]): Requirement[] {
  const names = gold.map((a) => a.name);
  const reads: Requirement[] = [];
  let pending = new Map<string, Requirement>();
  let w = 0;
  for (const a of gold) {
    const kind = tau2ToolKind(domain, a.name);
    if (kind === "read") {
      const alts = tau2ReadAlternatives(domain, a.name, names);
      const r = alts.length > 1 ? { any_of: alts } : a.name;
      pending.set(JSON.stringify(r), r);
    } else if (kind === "write" && w < writes.length && writes[w].tool === a.name) {
      if (w === 0) reads.push(...pending.values());
      else if (pending.size) writes[w].after = [...pending.values()];
      w++;
      pending = new Map();
    }
  }
  if (writes.length === 0) reads.push(...pending.values());
  return reads;
}

/**
 * Retail, as the policy reads: the customer identified by either allowed lookup (the required reads, returned);
 * the object each write changes read before it (its `after`, set on `writes`).
 */
function retailEvidence(writes: SpecWrite[]): Requirement[] {
  for (const w of writes) {
    const read = RETAIL_OBJECT_READS[w.tool];
    if (read) w.after = [read];
  }
  return [{ any_of: [...RETAIL_CUSTOMER_LOOKUPS] }];
}

// ---------- the spec ----------

export function specFor(
  domain: string,
  criteria: GoldCriteria,
  snapshot: Record<string, unknown>,
  db: Record<string, unknown>,
): { spec: Record<string, unknown>; refused: RefusedAction[] } {
  // The user's own tool calls (telecom: the customer toggles their phone) are not the agent's to make.
  const gold = criteria.actions.filter((a) => a.requestor !== "user");
  const retail = domain === "retail";
  const refusals = retail ? retailRefusals(db, gold) : gold.map(() => null);
  const refused = gold.flatMap((a, i) =>
    refusals[i] === null ? [] : [{ action_id: a.action_id ?? null, name: a.name, reason: refusals[i]! }],
  );
  const kept = gold.filter((_, i) => refusals[i] === null);
  const index = pointerIndex(snapshot);
  const writes: SpecWrite[] = kept
    .filter((a) => tau2ToolKind(domain, a.name) === "write")
    .map((a) => {
      const compared = a.compare_args
        ? Object.fromEntries(Object.entries(a.arguments).filter(([k]) => a.compare_args!.includes(k)))
        : a.arguments;
      return { tool: a.name, args: pointerize(compared, index) as Record<string, unknown> };
    });
  const reads = retail ? retailEvidence(writes) : goldPathEvidence(domain, kept, writes);

  const goldHandoff = gold.some((a) => tau2ToolKind(domain, a.name) === "handoff");
  const handoff =
    goldHandoff && (criteria.rewardBasis.includes("ACTION") || writes.length === 0) ? "required" : "allowed";
  const calls = retail ? Math.max(gold.length, retailConversationCalls(db, kept)) : gold.length;
  const used = new Set<string>();
  return {
    spec: {
      required_reads: reads,
      allowed_writes: writes.map((w) => ({ tool: w.tool, args: w.args })),
      required_writes: writes,
      must_mention: criteria.communicate.map((info, k) => ({ key: mentionKey(info, k, used), value: literal(info) })),
      handoff,
      step_budget: 2 * calls + 2,
    },
    refused,
  };
}
