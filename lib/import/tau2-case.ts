// A tau2-bench task → a Verity case (formats.md §1; the mapping is documented in docs/import.md). Pure.
//
// - ticket: the task's `ticket` when it has one, else the user scenario's instructions (what the simulated
//   customer wants and knows), under the id `tau2/<domain>/<task id>`;
// - env_snapshot: the entities of the domain database (db.json) that the gold actions' arguments or the scenario's
//   text name, plus the entities those entities name in turn (an order brings its user and products);
// - verifier_spec: gold read actions → required_reads, gold write actions → required_writes (and the only
//   allowed writes) with their string arguments as pointers into the snapshot, communicate_info → must_mention,
//   a gold hand-off → handoff "required" (else "not_allowed"), and a step budget of 2 · gold actions + 2.
import { createHash } from "node:crypto";
import { tau2ReadAlternatives, tau2ToolKind } from "@/lib/import/tau2-tools.ts";
import { tau2TaskSchema, jsonPath, type Tau2Action, type Tau2Task } from "@/lib/import/tau2-schema.ts";
import { ID_FORBIDDEN, MAX_ID_LENGTH } from "@/lib/verifier/limits.ts";
import { zodIssues, type Issue } from "@/lib/verifier/schema.ts";

export type Tau2Db = Record<string, unknown>;

export type MappedTask = {
  taskId: string;
  ticketId: string;
  domain: string;
  case: Record<string, unknown>;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A tau2-bench id as a Verity id segment: itself when it is a valid id, else a hash of it (kept on the ticket). */
export function idPart(raw: string): string {
  return raw.length <= 120 && !ID_FORBIDDEN.test(raw) && !/[\u0000-\u001f]/.test(raw)
    ? raw
    : `h${createHash("sha256").update(raw).digest("hex").slice(0, 16)}`;
}

export function tau2TicketId(domain: string, taskId: string): string {
  return `tau2/${idPart(domain)}/${idPart(taskId)}`;
}

/** The domain of a task: its instructions say it; else the results file's `info.environment_info.domain_name`. */
export function taskDomain(task: Tau2Task, fileDomain: string | null): string {
  const ins = task.user_scenario.instructions;
  return (typeof ins === "object" && ins.domain) || fileDomain || "tau2";
}

function ticketMessage(task: Tau2Task): string {
  if (task.ticket) return task.ticket;
  const ins = task.user_scenario.instructions;
  if (typeof ins === "string") return ins;
  const parts = [ins.reason_for_call];
  if (ins.known_info) parts.push(`Known info: ${ins.known_info}`);
  if (ins.unknown_info) parts.push(`Unknown info: ${ins.unknown_info}`);
  if (ins.task_instructions && ins.task_instructions.trim() !== ".")
    parts.push(`Task instructions: ${ins.task_instructions}`);
  return parts.join("\n");
}

// ---------- env snapshot ----------

/** Every string and number inside a value (the ids an action's arguments name). */
function collectScalars(v: unknown, into: Set<string>): void {
  if (typeof v === "string") into.add(v);
  else if (typeof v === "number") into.add(String(v));
  else if (Array.isArray(v)) for (const x of v) collectScalars(x, into);
  else if (isObject(v)) for (const x of Object.values(v)) collectScalars(x, into);
}

/** Words of free text that could be ids: `#W6390527.` → `#W6390527`. */
function textTokens(s: string, into: Set<string>): void {
  for (const w of s.split(/\s+/)) {
    const t = w.replace(/^[("'“‘[]+|[)"'”’\].,;:!?]+$/g, "");
    if (t.length >= 3) into.add(t);
  }
}

/** Fields of an array element that identify it or link it (`customer_id`, `id`, `phone_number`, `line_ids`). */
const ID_FIELD = /(?:^|_)(?:id|ids|number)$/;
const names = (v: unknown, refs: Set<string>) =>
  Array.isArray(v) ? v.some((x) => refs.has(String(x))) : refs.has(String(v));

/**
 * The entities of one collection of the database named by `refs`: a collection that is an object keyed by id
 * (retail's `orders`, airline's `reservations`) gives the entries whose key is named; one that is an array
 * (telecom's `customers`) gives the elements whose id fields (`…_id`, `…_number`, or a list `…_ids`) hold a named value.
 */
function pick(collection: unknown, refs: Set<string>): unknown {
  if (Array.isArray(collection)) {
    const hits = collection.filter(
      (e) => isObject(e) && Object.entries(e).some(([k, v]) => ID_FIELD.test(k) && names(v, refs)),
    );
    return hits.length ? hits : undefined;
  }
  if (isObject(collection)) {
    const hits = Object.entries(collection).filter(([k]) => refs.has(k));
    return hits.length ? Object.fromEntries(hits) : undefined;
  }
  return undefined;
}

export function snapshotFor(db: Tau2Db, refs: Set<string>): Record<string, unknown> {
  const pickAll = (r: Set<string>) => {
    const out: Record<string, unknown> = {};
    for (const [name, collection] of Object.entries(db)) {
      const hit = pick(collection, r);
      if (hit !== undefined) out[name] = hit;
    }
    return out;
  };
  // One step further: what the named entities name (an order's user and products, a user's orders).
  const first = pickAll(refs);
  const more = new Set(refs);
  collectScalars(first, more);
  return pickAll(more);
}

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

// ---------- spec ----------

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

export function specFor(
  domain: string,
  actions: readonly Tau2Action[],
  communicate: readonly string[],
  snapshot: Record<string, unknown>,
): Record<string, unknown> {
  // The user's own tool calls (telecom: the customer toggles their phone) are not the agent's to make.
  const gold = actions.filter((a) => a.requestor !== "user");
  const names = gold.map((a) => a.name);
  const index = pointerIndex(snapshot);

  // The gold trajectory's reads before its first write must precede every write (required_reads); the reads
  // between two writes must precede the later one (its `after`). A read after the last write is evidence for
  // nothing the agent did, unless the task has no write at all.
  const requirement = (name: string) => {
    const alts = tau2ReadAlternatives(domain, name, names);
    return alts.length > 1 ? { any_of: alts } : name;
  };
  const reads: unknown[] = [];
  const writes: { tool: string; args: Record<string, unknown>; after?: unknown[] }[] = [];
  let pending: unknown[] = [];
  let pendingKeys = new Set<string>();
  for (const a of gold) {
    const kind = tau2ToolKind(domain, a.name);
    if (kind === "read") {
      const r = requirement(a.name);
      const key = JSON.stringify(r);
      if (!pendingKeys.has(key)) {
        pendingKeys.add(key);
        pending.push(r);
      }
    } else if (kind === "write") {
      const compared = a.compare_args
        ? Object.fromEntries(Object.entries(a.arguments).filter(([k]) => a.compare_args!.includes(k)))
        : a.arguments;
      const w: (typeof writes)[number] = { tool: a.name, args: pointerize(compared, index) as Record<string, unknown> };
      if (writes.length === 0) reads.push(...pending);
      else if (pending.length) w.after = pending;
      writes.push(w);
      pending = [];
      pendingKeys = new Set();
    }
  }
  if (writes.length === 0) reads.push(...pending);
  const used = new Set<string>();
  return {
    required_reads: reads,
    allowed_writes: writes.map((w) => ({ tool: w.tool, args: w.args })),
    required_writes: writes,
    must_mention: communicate.map((info, k) => ({ key: mentionKey(info, k, used), value: literal(info) })),
    handoff: gold.some((a) => tau2ToolKind(domain, a.name) === "handoff") ? "required" : "not_allowed",
    step_budget: 2 * gold.length + 2,
  };
}

// ---------- the task ----------

export function mapTau2Task(
  raw: unknown,
  at: string,
  db: Tau2Db,
  fileDomain: string | null,
): { ok: true; mapped: MappedTask } | { ok: false; issue: Issue } {
  const parsed = tau2TaskSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = zodIssues(parsed.error)[0];
    return { ok: false, issue: { path: jsonPath(at, issue.path), message: issue.message } };
  }
  const task = parsed.data;
  const domain = taskDomain(task, fileDomain);
  const ticketId = tau2TicketId(domain, task.id);
  if (ticketId.length > MAX_ID_LENGTH)
    return { ok: false, issue: { path: jsonPath(at, "id"), message: "the task's ticket id would be too long" } };
  const actions = task.evaluation_criteria?.actions ?? [];
  const communicate = task.evaluation_criteria?.communicate_info ?? [];
  const message = ticketMessage(task);

  const refs = new Set<string>();
  for (const a of actions) collectScalars(a.arguments, refs);
  textTokens(message, refs);
  const snapshot = snapshotFor(db, refs);

  const ticket: Record<string, unknown> = { id: ticketId, category: idPart(domain), message, tau2_task_id: task.id };
  if (task.user_scenario.persona) ticket.persona = task.user_scenario.persona;
  if (task.description?.purpose) ticket.purpose = task.description.purpose;
  if (task.evaluation_criteria?.reward_basis) ticket.tau2_reward_basis = task.evaluation_criteria.reward_basis;
  if (task.evaluation_criteria?.nl_assertions?.length)
    ticket.tau2_nl_assertions = task.evaluation_criteria.nl_assertions;
  return {
    ok: true,
    mapped: {
      taskId: task.id,
      ticketId,
      domain,
      case: {
        kind: "case",
        ticket,
        env_snapshot: snapshot,
        verifier_spec: specFor(domain, actions, communicate, snapshot),
      },
    },
  };
}
