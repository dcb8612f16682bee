// A tau2-bench task → a Verity case (formats.md §1; the mapping is documented in docs/import.md). Pure.
//
// - ticket: the task's `ticket` when it has one, else the user scenario's instructions (what the simulated
//   customer wants and knows), under the id `tau2/<domain>/<task id>`;
// - env_snapshot: the entities of the domain database (db.json) that the gold actions' arguments or the scenario's
//   text name, plus the entities those entities name in turn (an order brings its user and products);
// - verifier_spec: from the evaluation criteria (lib/import/tau2-spec.ts): the gold writes the tools accept, the
//   evidence they need, communicate_info as must_mention, the hand-off and the step budget; the gold actions the
//   tools refuse on the database are listed on the ticket (`tau2_refused_actions`).
import { createHash } from "node:crypto";
import { tau2TaskSchema, jsonPath, type Tau2Task } from "@/lib/import/tau2-schema.ts";
import { specFor } from "@/lib/import/tau2-spec.ts";
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
  const { spec, refused } = specFor(
    domain,
    { actions, communicate, rewardBasis: task.evaluation_criteria?.reward_basis ?? [] },
    snapshot,
    db,
  );

  const ticket: Record<string, unknown> = { id: ticketId, category: idPart(domain), message, tau2_task_id: task.id };
  if (task.user_scenario.persona) ticket.persona = task.user_scenario.persona;
  if (task.description?.purpose) ticket.purpose = task.description.purpose;
  if (task.evaluation_criteria?.reward_basis) ticket.tau2_reward_basis = task.evaluation_criteria.reward_basis;
  if (task.evaluation_criteria?.nl_assertions?.length)
    ticket.tau2_nl_assertions = task.evaluation_criteria.nl_assertions;
  if (refused.length) ticket.tau2_refused_actions = refused;
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
        verifier_spec: spec,
      },
    },
  };
}
