// Cases and rollouts (formats §1, §2) <-> database rows, and the content hashes that make ingest idempotent
// (ledger entries: ledger-rows.ts). Pure. A case's hash is over its canonical JSON (key order does not matter);
// a rollout's, for speed, over its validated form as serialised (see rolloutRow).
import crypto, { createHash } from "node:crypto";
import { canonicalJsonFast as canonicalJson } from "@/lib/ledger/store/canonical.ts";
import { encodeCopyTail } from "@/lib/db/copy.ts";
import type { Case, Rollout } from "@/lib/verifier/schema.ts";
import { searchTexts, type SearchTexts } from "@/lib/ledger/store/search-rows.ts";

// crypto.hash (Node ≥ 20.12) hashes a string in one call, several times cheaper than a Hash object for short texts.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

export function sha256(text: string): string {
  return oneShot ? oneShot("sha256", text, "hex") : createHash("sha256").update(text).digest("hex");
}

// ---------- cases ----------

export type CaseRow = {
  ticket_id: string;
  category: string;
  customer_id: string | null;
  ticket: string;
  env_snapshot: string;
  verifier_spec: string;
  content_hash: string;
};

export function caseRow(c: Case): CaseRow {
  const ticket = canonicalJson(c.ticket);
  const env = canonicalJson(c.env_snapshot);
  const spec = canonicalJson(c.verifier_spec);
  return {
    ticket_id: c.ticket.id,
    category: c.ticket.category,
    customer_id: c.ticket.customer_id ?? null,
    ticket,
    env_snapshot: env,
    verifier_spec: spec,
    content_hash: sha256(`{"env_snapshot":${env},"ticket":${ticket},"verifier_spec":${spec}}`),
  };
}

/** The case as a wire object again (for scoring from the database, and for export). */
export function caseFromColumns(cols: { ticket: unknown; env_snapshot: unknown; verifier_spec: unknown }): Case {
  return {
    kind: "case",
    ticket: cols.ticket as Case["ticket"],
    env_snapshot: cols.env_snapshot as Case["env_snapshot"],
    verifier_spec: cols.verifier_spec as Case["verifier_spec"],
  };
}

// ---------- rollouts ----------

export type RolloutRow = {
  trajectory_id: string;
  run_id: string;
  step: number;
  group_id: string;
  sample_index: number;
  ticket_id: string;
  registry: string;
  registry_hash: string;
  tool_steps: number;
  /** The trainer's own reward, when the rollout carries one. */
  trained_reward: number | null;
  content_hash: string;
  /** The row's ROLLOUT_TAIL_COLUMNS in COPY format (the JSON documents are only ever needed as text, for COPY). */
  copy: Buffer;
  /** Its searchable texts (rollout_search), the ticket's message left empty: the batch's writer knows the case. */
  search: SearchTexts;
};

/** The columns of a rollouts row after the two known only when it is written (id, registry_id), in RolloutRow.copy. */
export const ROLLOUT_TAIL_COLUMNS = [
  "trajectory_id",
  "run_id",
  "step",
  "group_id",
  "sample_index",
  "ticket_id",
  "steps",
  "final_reply",
  "sandbox",
  "claims",
  "tool_steps",
  "trained_reward",
  "content_hash",
];

/** A GRPO group is the K rollouts of one ticket at one step; a rollout that names no group gets that one. */
export function defaultGroupId(runId: string, step: number, ticketId: string): string {
  return `${runId}/s${step}/${ticketId}`;
}

/** Fills the identity defaults the rollouts table needs, so the verifier's record carries the stored group. */
export function withIdentityDefaults(r: Rollout): Rollout {
  if (r.group_id && r.sample_index !== undefined && r.sample_index !== null) return r;
  return {
    ...r,
    group_id: r.group_id || defaultGroupId(r.run_id, r.step, r.ticket_id),
    sample_index: r.sample_index ?? 0,
  };
}

/**
 * The row of a validated rollout. Its content hash covers the stored values serialised as validated (field order of
 * the schema, extra fields in the order received): the same line sent again hashes the same. Unlike cases and ledger
 * entries it is not key-order canonical — rollouts are the bulk of every ingest and never round-trip through jsonb
 * before being compared, so the cost of canonical JSON is not worth paying here. A trained reward joins the hashed
 * head only when the rollout has one, so a rollout without it hashes as it did before the field existed.
 */
export function rolloutRow(r: Rollout): RolloutRow {
  const steps = JSON.stringify(r.trajectory.steps);
  const sandbox = JSON.stringify(r.sandbox);
  const registry = internRegistry(JSON.stringify(r.tool_registry), r.tool_registry);
  const claims = r.claims ? JSON.stringify(r.claims) : null;
  const groupId = r.group_id || defaultGroupId(r.run_id, r.step, r.ticket_id);
  const sampleIndex = r.sample_index ?? 0;
  let toolSteps = 0;
  for (const s of r.trajectory.steps) if (s.type === "tool") toolSteps++;
  const trained = r.trained_reward ?? null;
  const head = JSON.stringify({
    trajectory_id: r.trajectory_id,
    run_id: r.run_id,
    step: r.step,
    group_id: groupId,
    sample_index: sampleIndex,
    ticket_id: r.ticket_id,
    final_reply: r.trajectory.final_reply,
    ...(trained === null ? {} : { trained_reward: trained }),
  });
  // Fed in parts: concatenating them first would copy the whole rollout once more.
  const contentHash = createHash("sha256")
    .update(head)
    .update("\n")
    .update(steps)
    .update("\n")
    .update(sandbox)
    .update("\n")
    .update(registry.text)
    .update("\n")
    .update(claims ?? "null")
    .digest("hex");
  return {
    trajectory_id: r.trajectory_id,
    run_id: r.run_id,
    step: r.step,
    group_id: groupId,
    sample_index: sampleIndex,
    ticket_id: r.ticket_id,
    registry: registry.text,
    registry_hash: registry.hash,
    tool_steps: toolSteps,
    trained_reward: trained,
    content_hash: contentHash,
    copy: encodeCopyTail([
      r.trajectory_id,
      r.run_id,
      r.step,
      groupId,
      sampleIndex,
      r.ticket_id,
      steps,
      r.trajectory.final_reply,
      sandbox,
      claims,
      toolSteps,
      trained,
      contentHash,
    ]),
    search: searchTexts({ steps: r.trajectory.steps, finalReply: r.trajectory.final_reply }, null),
  };
}

// Registries repeat across nearly every rollout of a run: each distinct text is hashed once (canonically, so key
// order does not create duplicate registry rows) and kept once — every row of a batch shares that one string.
const registries = new Map<string, { text: string; hash: string }>();

function internRegistry(text: string, registry: unknown): { text: string; hash: string } {
  let known = registries.get(text);
  if (!known) {
    known = { text, hash: sha256(canonicalJson(registry)) };
    if (registries.size >= 1000) registries.clear();
    registries.set(text, known);
  }
  return known;
}

/** The rollout as the verifier reads it, rebuilt from its stored columns (re-score). */
export function rolloutFromColumns(
  cols: Omit<RolloutRowDb, "id" | "trained_reward"> & { trained_reward?: number | null },
): Rollout {
  const trained = cols.trained_reward ?? null;
  return {
    kind: "rollout",
    trajectory_id: cols.trajectory_id,
    run_id: cols.run_id,
    step: cols.step,
    group_id: cols.group_id,
    sample_index: cols.sample_index,
    ticket_id: cols.ticket_id,
    trajectory: { steps: cols.steps as Rollout["trajectory"]["steps"], final_reply: cols.final_reply },
    sandbox: cols.sandbox as Rollout["sandbox"],
    tool_registry: cols.tools as Rollout["tool_registry"],
    claims: (cols.claims ?? null) as Rollout["claims"],
    ...(trained === null ? {} : { trained_reward: trained }),
  };
}

/** A rollout as the re-score and the exports read it (ids as text, the registry's tools joined). */
export type RolloutRowDb = {
  id: string;
  trajectory_id: string;
  run_id: string;
  step: number;
  group_id: string;
  sample_index: number;
  ticket_id: string;
  steps: unknown;
  final_reply: string;
  sandbox: unknown;
  claims: unknown;
  tools: unknown;
  trained_reward: number | null;
};
