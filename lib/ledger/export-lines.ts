// The NDJSON export's lines built from the stored columns with the JSON documents read as PostgreSQL's text
// (`…::text`), so that an export of a million entries and rollouts parses and re-serialises no JSON in Node: the
// records are recordFromLedger's (lib/ledger/store/ledger-rows.ts) and rolloutFromColumns's (lib/ledger/store/rows.ts), key for
// key and in the same order; export.int.test.ts compares them on every entry and rollout of a run that holds each
// kind of record. The documents keep PostgreSQL's spacing (`{"code": "x"}`): the same JSON, a few bytes longer.
import type { LedgerValues } from "@/lib/ledger/store/ledger-rows.ts";
import type { RolloutRowDb } from "@/lib/ledger/store/rows.ts";
import { DIMENSIONS } from "@/lib/verifier/codes.ts";

/** A current entry as the export reads it: the ledger's values, its JSON columns as text. */
export type LedgerTextRow = Omit<LedgerValues, "guardrails" | "reasons" | "claims" | "guardrail_mask"> & {
  id: string;
  guardrails: string;
  reasons: string;
  claims: string | null;
};

/** The columns of a LedgerTextRow, the ledger read as `l`. */
export const LEDGER_TEXT_COLUMNS = `l.id::text as id, l.trajectory_id, l.run_id, l.step, l.ticket_id, l.group_id,
  l.status::text as status, l.source::text as source, l.verifier_version, l.config_hash, l.claims_source, l.raw_reward,
  l.reward, l.capped, l.outcome, l.policy, l.evidence, l.efficiency, l.communication, l.deciding_guardrail,
  l.guardrails::text as guardrails, l.reasons::text as reasons, l.claims::text as claims, l.handoff, l.tool_steps,
  l.trained_reward`;

const j = JSON.stringify;

/** The entry's score record (formats §3) as one NDJSON line. */
export function ledgerLine(v: LedgerTextRow): string {
  let id = `"trajectory_id":${j(v.trajectory_id)},"run_id":${j(v.run_id)},"step":${v.step},"ticket_id":${j(v.ticket_id)}`;
  if (v.group_id !== null) id += `,"group_id":${j(v.group_id)}`;
  let sub = "";
  for (const d of DIMENSIONS) if (v[d] !== null) sub += `${sub ? "," : ""}"${d}":${j(v[d])}`;
  const trained = v.trained_reward !== null ? `,"trained_reward":${j(v.trained_reward)}` : "";
  if (v.source === "external") {
    let out = `{"kind":"score","source":"external",${id},"reward":${j(v.reward)}`;
    if (v.raw_reward !== null) out += `,"raw_reward":${j(v.raw_reward)}`;
    if (sub) out += `,"subscores":{${sub}}`;
    if (v.guardrails !== "[]") out += `,"guardrails":${v.guardrails}`;
    if (v.reasons !== "[]") out += `,"reasons":${v.reasons}`;
    return `${out}${trained}}\n`;
  }
  return (
    `{"kind":"score",${id},"status":${j(v.status)},"source":"verifier","verifier_version":${j(v.verifier_version)},` +
    `"config_hash":${j(v.config_hash)},"claims_source":${j(v.claims_source)},"raw_reward":${j(v.raw_reward)},` +
    `"reward":${j(v.reward)},"capped":${j(v.capped)},"subscores":${v.status === "scored" ? `{${sub}}` : "null"},` +
    `"guardrails":${v.guardrails},"deciding_guardrail":${j(v.deciding_guardrail)},"reasons":${v.reasons},` +
    `"claims":${v.claims ?? "null"},"handoff":${j(v.handoff)},"tool_steps":${j(v.tool_steps)}${trained}}\n`
  );
}

/** A rollout as the archive reads it: the re-score's row (lib/ledger/mutations.ts) with its JSON documents as text,
 * and its registry by id (read once per registry) instead of the registry itself. */
export type RolloutTextRow = Omit<RolloutRowDb, "steps" | "sandbox" | "claims" | "tools"> & {
  steps: string;
  sandbox: string;
  claims: string | null;
  registry_id: number;
};

/** The columns of a RolloutTextRow, the rollouts read as `r`. */
export const ROLLOUT_TEXT_COLUMNS = `r.id::text as id, r.trajectory_id, r.run_id, r.step, r.group_id, r.sample_index,
  r.ticket_id, r.steps::text as steps, r.final_reply, r.sandbox::text as sandbox, r.claims::text as claims,
  r.trained_reward, r.registry_id`;

/** The rollout (formats §2) as one NDJSON line, with its tool registry's JSON text. */
export function rolloutLine(r: RolloutTextRow, tools: string): string {
  return (
    `{"kind":"rollout","trajectory_id":${j(r.trajectory_id)},"run_id":${j(r.run_id)},"step":${r.step},` +
    `"group_id":${j(r.group_id)},"sample_index":${j(r.sample_index)},"ticket_id":${j(r.ticket_id)},` +
    `"trajectory":{"steps":${r.steps},"final_reply":${j(r.final_reply)}},"sandbox":${r.sandbox},` +
    `"tool_registry":${tools},"claims":${r.claims ?? "null"}` +
    `${r.trained_reward !== null ? `,"trained_reward":${j(r.trained_reward)}` : ""}}\n`
  );
}
