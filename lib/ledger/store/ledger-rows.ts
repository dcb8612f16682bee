// Score records (formats §3) <-> ledger rows, and the ledger's content hash. Pure.
//
// The hash covers the wire record rebuilt from the stored columns (recordFromLedger), in canonical JSON: what export
// writes is what the hash covers, so export -> ingest reproduces hash and row exactly, whatever key order jsonb
// hands back. The trained reward is joined on afterwards (entryHash): an entry takes its rollout's when its record
// gives none, which is known only when the entry is written (write-batch.ts), and an entry without one keeps the
// hash it had before the field existed.
import { canonicalJsonFast as canonicalJson, CanonicalText } from "@/lib/ledger/store/canonical.ts";
import { encodeCopyTail } from "@/lib/db/copy.ts";
import { sha256 } from "@/lib/ledger/store/rows.ts";
import { guardrailMask } from "@/lib/verifier/guardrail-mask.ts";
import { DIMENSIONS, GUARDRAIL_CODES, type GuardrailCode } from "@/lib/verifier/codes.ts";
import { DEFAULT_CONFIG } from "@/lib/verifier/config.ts";
import type { ScoreRecord } from "@/lib/verifier/schema.ts";

type Status = "scored" | "spec_error" | "input_error";

/** The ledger columns that a score record determines (ids, category, rollout link and flags come from elsewhere). */
export type LedgerValues = {
  trajectory_id: string;
  run_id: string;
  step: number;
  ticket_id: string;
  group_id: string | null;
  status: Status;
  source: "verifier" | "external";
  verifier_version: string | null;
  config_hash: string | null;
  claims_source: string | null;
  raw_reward: number | null;
  reward: number | null;
  capped: boolean;
  outcome: number | null;
  policy: number | null;
  evidence: number | null;
  efficiency: number | null;
  communication: number | null;
  deciding_guardrail: string | null;
  guardrail_mask: number;
  guardrails: Record<string, unknown>[];
  reasons: Record<string, unknown>[];
  claims: unknown;
  handoff: boolean | null;
  tool_steps: number | null;
  /** The trainer's own reward: the record's, else (set when written) its rollout's. */
  trained_reward: number | null;
};

export type LedgerEntryRows = {
  values: LedgerValues;
  /** entryHash(record_hash, values.trained_reward). */
  content_hash: string;
  /** The hash of the record without its trained reward. */
  record_hash: string;
  /** The jsonb columns as JSON text (canonical; computed once for the hash and reused by COPY). */
  json: { guardrails: string; reasons: string; claims: string | null };
  /** ledger_guardrails rows: code, cap, deciding. */
  guardrails: { code: string; cap: number; deciding: boolean }[];
  /** ledger_reasons rows, in record order. */
  reasons: {
    dimension: string | null;
    guardrail: string | null;
    code: string;
    tool: string | null;
    field: string | null;
  }[];
  /** The row's LEDGER_TAIL_COLUMNS in COPY format. */
  copy: Buffer;
};

/** The columns of a ledger row that its score record determines, in LedgerEntryRows.copy; the others (id, rollout,
 * category, supersedes, trained reward and content hash) are known only when it is written. */
export const LEDGER_TAIL_COLUMNS = [
  "trajectory_id",
  "run_id",
  "step",
  "ticket_id",
  "group_id",
  "status",
  "source",
  "verifier_version",
  "config_hash",
  "claims_source",
  "raw_reward",
  "reward",
  "capped",
  "outcome",
  "policy",
  "evidence",
  "efficiency",
  "communication",
  "deciding_guardrail",
  "guardrail_mask",
  "guardrails",
  "reasons",
  "claims",
  "handoff",
  "tool_steps",
];

function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

/**
 * The ledger values of a validated score record, or why it cannot be stored. External records are normalised
 * (guardrail codes become objects, empty lists are dropped) and their deciding guardrail is the lowest cap among
 * the listed ones (the given cap, else the default config's), ties in table order as in the verifier.
 */
export function ledgerEntryRows(
  record: ScoreRecord,
): { ok: true; rows: LedgerEntryRows } | { ok: false; path: string; message: string } {
  for (const key of ["trajectory_id", "run_id", "step", "ticket_id"] as const) {
    if (record[key] === null || record[key] === undefined) {
      return { ok: false, path: key, message: `a score record without ${key} cannot be stored in the ledger` };
    }
  }
  let values: LedgerValues;
  if (record.source === "external") {
    const hits = (record.guardrails ?? []).map((g) => (typeof g === "string" ? { code: g } : { ...g })) as Record<
      string,
      unknown
    >[];
    const capOf = (g: Record<string, unknown>) =>
      typeof g.cap === "number" ? g.cap : DEFAULT_CONFIG.guardrails[g.code as GuardrailCode].cap;
    let deciding: string | null = null;
    let lowest = Infinity;
    for (const code of GUARDRAIL_CODES) {
      const g = hits.find((h) => h.code === code);
      if (g && capOf(g) < lowest) {
        lowest = capOf(g);
        deciding = code;
      }
    }
    const raw = record.raw_reward ?? null;
    const sub = record.subscores ?? {};
    values = {
      trajectory_id: record.trajectory_id,
      run_id: record.run_id,
      step: record.step,
      ticket_id: record.ticket_id,
      group_id: record.group_id ?? null,
      status: "scored",
      source: "external",
      verifier_version: null,
      config_hash: null,
      claims_source: null,
      raw_reward: raw,
      reward: record.reward,
      capped: hits.length > 0 && raw !== null && record.reward < raw,
      outcome: sub.outcome ?? null,
      policy: sub.policy ?? null,
      evidence: sub.evidence ?? null,
      efficiency: sub.efficiency ?? null,
      communication: sub.communication ?? null,
      deciding_guardrail: deciding,
      guardrail_mask: guardrailMask(hits.map((h) => String(h.code))),
      guardrails: hits,
      reasons: (record.reasons ?? []) as Record<string, unknown>[],
      claims: null,
      handoff: null,
      tool_steps: null,
      trained_reward: record.trained_reward ?? null,
    };
    return { ok: true, rows: finish(values, capOf) };
  }
  const sub = record.subscores;
  values = {
    trajectory_id: record.trajectory_id as string,
    run_id: record.run_id as string,
    step: record.step as number,
    ticket_id: record.ticket_id as string,
    group_id: record.group_id ?? null,
    status: record.status,
    source: "verifier",
    verifier_version: record.verifier_version,
    config_hash: record.config_hash,
    claims_source: record.claims_source,
    raw_reward: record.raw_reward,
    reward: record.reward,
    capped: record.capped,
    outcome: sub?.outcome ?? null,
    policy: sub?.policy ?? null,
    evidence: sub?.evidence ?? null,
    efficiency: sub?.efficiency ?? null,
    communication: sub?.communication ?? null,
    deciding_guardrail: record.deciding_guardrail,
    guardrail_mask: guardrailMask(record.guardrails.map((g) => g.code)),
    guardrails: record.guardrails as Record<string, unknown>[],
    reasons: record.reasons as Record<string, unknown>[],
    claims: record.claims ?? null,
    handoff: record.handoff ?? null,
    tool_steps: record.tool_steps ?? null,
    trained_reward: record.trained_reward ?? null,
  };
  return { ok: true, rows: finish(values, (g) => g.cap as number) };
}

function finish(values: LedgerValues, capOf: (g: Record<string, unknown>) => number): LedgerEntryRows {
  const json = {
    guardrails: canonicalJson(values.guardrails),
    reasons: canonicalJson(values.reasons),
    claims: values.claims === null ? null : canonicalJson(values.claims),
  };
  const record = recordFromLedger({ ...values, trained_reward: null });
  if ("guardrails" in record) record.guardrails = new CanonicalText(json.guardrails);
  if ("reasons" in record) record.reasons = new CanonicalText(json.reasons);
  if (json.claims !== null && "claims" in record) record.claims = new CanonicalText(json.claims);
  const v = values;
  const recordHash = sha256(canonicalJson(record));
  return {
    values,
    content_hash: entryHash(recordHash, values.trained_reward),
    record_hash: recordHash,
    json,
    copy: encodeCopyTail([
      v.trajectory_id,
      v.run_id,
      v.step,
      v.ticket_id,
      v.group_id,
      v.status,
      v.source,
      v.verifier_version,
      v.config_hash,
      v.claims_source,
      v.raw_reward,
      v.reward,
      v.capped,
      v.outcome,
      v.policy,
      v.evidence,
      v.efficiency,
      v.communication,
      v.deciding_guardrail,
      v.guardrail_mask,
      json.guardrails,
      json.reasons,
      json.claims,
      v.handoff,
      v.tool_steps,
    ]),
    // One narrow row per code (its primary key), even if an external record lists a code twice.
    guardrails: [...new Map(values.guardrails.map((g) => [String(g.code), g])).values()].map((g) => ({
      code: String(g.code),
      cap: capOf(g),
      deciding: g.code === values.deciding_guardrail,
    })),
    reasons: values.reasons.map((r) => ({
      dimension: str(r.dimension),
      guardrail: str(r.guardrail),
      code: String(r.code),
      tool: str(r.tool),
      field: str(r.field),
    })),
  };
}

export function ledgerHash(values: LedgerValues): string {
  return entryHash(sha256(canonicalJson(recordFromLedger({ ...values, trained_reward: null }))), values.trained_reward);
}

/** An entry's content hash from its record's (without trained reward) and its trained reward: the record's own
 * when there is none, so entries and files from before `trained_reward` existed hash as they did. */
export function entryHash(recordHash: string, trained: number | null): string {
  return trained === null ? recordHash : sha256(`${recordHash}\ntrained_reward ${JSON.stringify(trained)}`);
}

/** The entry with another trained reward (its rollout's, or the superseded entry's on a re-score). */
export function withTrainedReward(rows: LedgerEntryRows, trained: number | null): LedgerEntryRows {
  if (trained === rows.values.trained_reward) return rows;
  return {
    ...rows,
    values: { ...rows.values, trained_reward: trained },
    content_hash: entryHash(rows.record_hash, trained),
  };
}

/**
 * The wire score record (formats §3) of a ledger entry: what export writes and what the content hash covers.
 * Absent optional fields are omitted rather than null, so "no group" has one spelling.
 */
export function recordFromLedger(v: LedgerValues): Record<string, unknown> {
  const id: Record<string, unknown> = {
    trajectory_id: v.trajectory_id,
    run_id: v.run_id,
    step: v.step,
    ticket_id: v.ticket_id,
  };
  if (v.group_id !== null) id.group_id = v.group_id;
  const subscores: Record<string, number> = {};
  for (const d of DIMENSIONS) if (v[d] !== null) subscores[d] = v[d] as number;

  if (v.source === "external") {
    const out: Record<string, unknown> = { kind: "score", source: "external", ...id, reward: v.reward };
    if (v.raw_reward !== null) out.raw_reward = v.raw_reward;
    if (Object.keys(subscores).length) out.subscores = subscores;
    if (v.guardrails.length) out.guardrails = v.guardrails;
    if (v.reasons.length) out.reasons = v.reasons;
    if (v.trained_reward !== null) out.trained_reward = v.trained_reward;
    return out;
  }
  const out: Record<string, unknown> = {
    kind: "score",
    ...id,
    status: v.status,
    source: "verifier",
    verifier_version: v.verifier_version,
    config_hash: v.config_hash,
    claims_source: v.claims_source,
    raw_reward: v.raw_reward,
    reward: v.reward,
    capped: v.capped,
    subscores: v.status === "scored" ? subscores : null,
    guardrails: v.guardrails,
    deciding_guardrail: v.deciding_guardrail,
    reasons: v.reasons,
    claims: v.claims,
    handoff: v.handoff,
    tool_steps: v.tool_steps,
  };
  if (v.trained_reward !== null) out.trained_reward = v.trained_reward;
  return out;
}
