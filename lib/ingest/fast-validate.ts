// A fast path in front of the wire schemas for the kinds of line that make up nearly every ingest: a rollout, a
// verifier score record with status "scored", and a score record computed elsewhere (`"source": "external"`). It answers only "valid, and zod would hand back exactly this
// value": then the line's own parsed value is used as is, with no copy. Anything else — invalid, or valid but
// needing a transform, a default or a reordering of keys — returns null and goes through zod (lib/verifier/schema.ts),
// which stays the single source of truth for acceptance and for every error message. So this may only ever say
// "not sure"; it must never accept what zod rejects or change what a line stores (fast-validate.test.ts checks both
// on generated lines and on 4,000 mutations of them).
import { DIMENSIONS, GUARDRAIL_CODES, REGISTRY_KINDS } from "@/lib/verifier/codes.ts";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";
import { ID_FORBIDDEN, MAX_CLAIMS, MAX_ID_LENGTH, MAX_REASONS, MAX_STEPS } from "@/lib/verifier/limits.ts";
import {
  claimsSchema,
  externalScoreSchema,
  guardrailHitSchema,
  instantSchema,
  mentionSchema,
  reasonSchema,
  registryEntrySchema,
  rolloutSchema,
  sandboxWriteSchema,
  scoredRecordSchema,
  toolStepSchema,
  llmStepSchema,
  type Rollout,
  type ScoreRecord,
} from "@/lib/verifier/schema.ts";

type Obj = Record<string, unknown>;

// Key order of each object as zod writes it (its shape). Taken from the schemas themselves, so a field added there
// is unknown here until this file learns its type — and an unknown key in a strict object sends the line to zod.
const keysOf = (schema: { shape: object }) => Object.keys(schema.shape);
const ROLLOUT = keysOf(rolloutSchema);
const TRAJECTORY = keysOf(rolloutSchema.shape.trajectory);
const SANDBOX = keysOf(rolloutSchema.shape.sandbox);
const TOOL_STEP = keysOf(toolStepSchema);
const LLM_STEP = keysOf(llmStepSchema);
const WRITE = keysOf(sandboxWriteSchema);
const REGISTRY_ENTRY = keysOf(registryEntrySchema);
const CLAIMS = keysOf(claimsSchema);
const MENTION = keysOf(mentionSchema);
const SCORED = keysOf(scoredRecordSchema);
const EXTERNAL = keysOf(externalScoreSchema);
const EXTERNAL_HIT = ["code", "cap", "evidence"];
const REASON = keysOf(reasonSchema);
const GUARDRAIL_HIT = keysOf(guardrailHitSchema);

const DIMENSION_SET = new Set<unknown>(DIMENSIONS);
const GUARDRAIL_SET = new Set<unknown>(GUARDRAIL_CODES);
const KIND_SET = new Set<unknown>(REGISTRY_KINDS);
const CONFIG_HASH = /^sha256:[0-9a-f]{64}$/;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
// The id limits of lib/verifier/limits.ts, as the schema's id applies them.
const isIdText = (v: unknown) => typeof v === "string" && v.length <= MAX_ID_LENGTH && !ID_FORBIDDEN.test(v);
const isId = (v: unknown) => isIdText(v) && (v as string).length >= 1;
const isIndexedText = (v: unknown) => typeof v === "string" && v.length <= MAX_ID_LENGTH;
const isNonNegInt = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0 && v <= INT4_MAX;
const isUnit = (v: unknown) => typeof v === "number" && v >= 0 && v <= 1;
const absent = (v: unknown) => v === undefined;
/** `trained_reward`: absent, null or a finite number (JSON cannot spell the others, a JavaScript caller can). */
const isTrainedReward = (v: unknown) => v === undefined || v === null || Number.isFinite(v);

/**
 * The keys of `o` are among `known`, optionally followed by keys it does not know (`loose`). With `ordered`, the
 * known keys also come in `known`'s order and before any others: then zod's output has the same keys in the same
 * order, which matters where a value is stored as serialised. (Keys holding `undefined`, which only a JavaScript
 * caller can pass, count as present; zod keeps them and JSON drops them in both cases.) A `__proto__` key, which
 * JSON.parse makes an own property but an assignment does not, always goes to zod.
 */
function keysOk(o: Obj, known: readonly string[], loose: boolean, ordered: boolean): boolean {
  let k = 0;
  let extra = false;
  for (const key in o) {
    if (key === "__proto__" || !Object.hasOwn(o, key)) return false;
    const i = known.indexOf(key, ordered ? k : 0);
    if (i < 0) {
      if (!loose || known.includes(key)) return false;
      extra = true;
    } else if (ordered) {
      if (extra) return false;
      k = i + 1;
    }
  }
  return true;
}

/** A record (z.record of string keys): zod copies it key by key. */
function isRecord(o: unknown): o is Obj {
  return isObj(o) && !Object.hasOwn(o, "__proto__");
}

/** Every entry of a list passes `test`, and the list has at most `max` (past it, zod names the bound). */
function everyIs(v: unknown, test: (x: unknown) => boolean, max = Number.POSITIVE_INFINITY): boolean {
  if (!Array.isArray(v) || v.length > max) return false;
  for (let i = 0; i < v.length; i++) if (!test(v[i])) return false;
  return true;
}

/** No two entries of a list share a key (a repeat goes to zod, which names it). */
function noRepeats(list: unknown[], keyOf: (x: unknown) => unknown = (x) => x): boolean {
  const seen = new Set<unknown>();
  for (const x of list) {
    const k = keyOf(x);
    if (seen.has(k)) return false;
    seen.add(k);
  }
  return true;
}

function isClaims(c: unknown): boolean {
  if (!isObj(c) || !keysOk(c, CLAIMS, false, true)) return false;
  // Each list has a default in zod: an absent one would be added, so it must be present here.
  return (
    everyIs(c.claimed_writes, isId, MAX_CLAIMS) &&
    everyIs(c.forbidden_hits, isId, MAX_CLAIMS) &&
    everyIs(c.mentioned, isMention, MAX_CLAIMS) &&
    noRepeats(c.claimed_writes as unknown[]) &&
    noRepeats(c.forbidden_hits as unknown[])
  );
}

function isMention(m: unknown): boolean {
  if (!isObj(m) || !keysOk(m, MENTION, false, true) || !isId(m.key)) return false;
  const v = m.value;
  return v === undefined || v === null || typeof v === "string" || Number.isFinite(v) || typeof v === "boolean";
}

/** A tool step whose input is already an object (a JSON-string input is parsed by zod: a transform). */
function isStep(s: unknown): boolean {
  if (!isObj(s)) return false;
  if (s.type === "tool") {
    return (
      keysOk(s, TOOL_STEP, true, true) &&
      isId(s.name) &&
      isRecord(s.input) &&
      (s.status === "success" || s.status === "failed")
    );
  }
  if (s.type === "llm") return keysOk(s, LLM_STEP, true, true) && (s.name === undefined || typeof s.name === "string");
  return false;
}

function isWrite(w: unknown, steps: number): boolean {
  if (!isObj(w) || !keysOk(w, WRITE, true, true) || !isId(w.tool) || !isRecord(w.args)) return false;
  if (w.step !== undefined && !(isNonNegInt(w.step) && (w.step as number) < steps)) return false;
  return w.at === undefined || (typeof w.at === "string" && instantSchema.safeParse(w.at).success);
}

function isTableRows(rows: unknown): boolean {
  return everyIs(rows, isRecord);
}

/** The rollout itself when zod would accept it unchanged (see the file comment), else null. */
export function fastRollout(v: unknown): Rollout | null {
  // The top level is read field by field, never stored as serialised: its key order does not matter.
  if (!isObj(v) || v.kind !== "rollout" || !keysOk(v, ROLLOUT, false, false)) return null;
  if (!isId(v.trajectory_id) || !isId(v.run_id) || !isNonNegInt(v.step) || !isId(v.ticket_id)) return null;
  if (!(absent(v.group_id) || v.group_id === null || isId(v.group_id))) return null;
  if (!(absent(v.sample_index) || v.sample_index === null || isNonNegInt(v.sample_index))) return null;
  // An embedded case is rare and carries the whole case schema: zod checks it.
  if (!absent(v.case)) return null;
  const t = v.trajectory;
  if (
    !isObj(t) ||
    !keysOk(t, TRAJECTORY, true, true) ||
    !everyIs(t.steps, isStep, MAX_STEPS) ||
    typeof t.final_reply !== "string"
  )
    return null;
  const steps = (t.steps as unknown[]).length;
  const sb = v.sandbox;
  if (!isObj(sb) || !keysOk(sb, SANDBOX, true, true) || !everyIs(sb.writes, (w) => isWrite(w, steps))) return null;
  // `tables` has a default ({}) in zod: absent means zod would add it.
  if (!isRecord(sb.tables)) return null;
  for (const key in sb.tables) if (!isTableRows((sb.tables as Obj)[key])) return null;
  const registry = v.tool_registry;
  if (!Array.isArray(registry)) return null;
  const names = new Set<unknown>();
  for (const e of registry) {
    if (
      !isObj(e) ||
      !keysOk(e, REGISTRY_ENTRY, true, true) ||
      !isId(e.name) ||
      !KIND_SET.has(e.kind) ||
      names.has(e.name)
    )
      return null;
    names.add(e.name);
  }
  if (!(absent(v.claims) || v.claims === null || isClaims(v.claims))) return null;
  if (!isTrainedReward(v.trained_reward)) return null;
  return v as Rollout;
}

function isReason(r: unknown): boolean {
  if (!isObj(r) || !keysOk(r, REASON, true, false) || !isId(r.code) || typeof r.message !== "string") return false;
  if (!(r.dimension === undefined || DIMENSION_SET.has(r.dimension))) return false;
  if (!(r.guardrail === undefined || GUARDRAIL_SET.has(r.guardrail))) return false;
  for (const k of ["tool", "field"] as const) if (!(r[k] === undefined || isIndexedText(r[k]))) return false;
  for (const k of ["pointer", "path"] as const) if (!(r[k] === undefined || typeof r[k] === "string")) return false;
  return true;
}

function isGuardrailHit(g: unknown): boolean {
  return (
    isObj(g) &&
    keysOk(g, GUARDRAIL_HIT, false, false) &&
    GUARDRAIL_SET.has(g.code) &&
    isUnit(g.cap) &&
    isRecord(g.evidence)
  );
}

function isSubscores(s: unknown): boolean {
  if (!isObj(s) || !keysOk(s, DIMENSIONS, false, false)) return false;
  let n = 0;
  for (const key in s) {
    if (!DIMENSION_SET.has(key) || !isUnit(s[key])) return false;
    n++;
  }
  return n === DIMENSIONS.length;
}

/**
 * A verifier record with status "scored", as the verifier writes it, when zod would accept it unchanged; else null.
 * Key order does not matter here: the ledger reads its fields and hashes canonical JSON (ledger-rows.ts).
 */
export function fastScoredRecord(v: unknown): ScoreRecord | null {
  if (!isObj(v) || v.kind !== "score" || v.source !== "verifier" || v.status !== "scored") return null;
  if (!keysOk(v, SCORED, false, false)) return null;
  if (!isId(v.trajectory_id) || !isId(v.run_id) || !isNonNegInt(v.step) || !isId(v.ticket_id)) return null;
  if (!(absent(v.group_id) || v.group_id === null || isId(v.group_id))) return null;
  if (!(absent(v.sample_index) || v.sample_index === null || isNonNegInt(v.sample_index))) return null;
  if (!isId(v.verifier_version) || typeof v.config_hash !== "string" || !CONFIG_HASH.test(v.config_hash)) return null;
  if (!(v.claims_source === null || isIdText(v.claims_source))) return null;
  if (!everyIs(v.reasons, isReason, MAX_REASONS)) return null;
  if (!isUnit(v.raw_reward) || !isUnit(v.reward) || typeof v.capped !== "boolean" || !isSubscores(v.subscores))
    return null;
  if (!everyIs(v.guardrails, isGuardrailHit) || !noRepeats(v.guardrails as unknown[], (g) => (g as Obj).code))
    return null;
  if (!(v.deciding_guardrail === null || GUARDRAIL_SET.has(v.deciding_guardrail))) return null;
  if (!isClaims(v.claims) || typeof v.handoff !== "boolean" || !isNonNegInt(v.tool_steps)) return null;
  if (!isTrainedReward(v.trained_reward)) return null;
  return v as ScoreRecord;
}

/** A guardrail of an external record: a code, or an object with a code, an optional cap and anything else. */
function isExternalHit(g: unknown): boolean {
  if (typeof g === "string") return GUARDRAIL_SET.has(g);
  return (
    isObj(g) &&
    keysOk(g, EXTERNAL_HIT, true, false) &&
    GUARDRAIL_SET.has(g.code) &&
    (g.cap === undefined || isUnit(g.cap))
  );
}

/** Some of the sub-scores, each on [0, 1]. */
function isPartialSubscores(s: unknown): boolean {
  if (!isObj(s) || !keysOk(s, DIMENSIONS, false, false)) return false;
  for (const key in s) if (!isUnit(s[key])) return false;
  return true;
}

/**
 * An external score record (formats §3: `"source": "external"`, `kind` optional) when zod would accept it unchanged;
 * else null. As for verifier records, key order does not matter: the ledger hashes canonical JSON.
 */
export function fastExternalRecord(v: unknown): ScoreRecord | null {
  if (!isObj(v) || v.source !== "external" || !(v.kind === undefined || v.kind === "score")) return null;
  if (!keysOk(v, EXTERNAL, false, false)) return null;
  if (!isId(v.trajectory_id) || !isId(v.run_id) || !isNonNegInt(v.step) || !isId(v.ticket_id)) return null;
  if (!(absent(v.group_id) || v.group_id === null || isId(v.group_id))) return null;
  if (!(absent(v.sample_index) || v.sample_index === null || isNonNegInt(v.sample_index))) return null;
  if (!isUnit(v.reward) || !(absent(v.raw_reward) || v.raw_reward === null || isUnit(v.raw_reward))) return null;
  if (!(absent(v.subscores) || isPartialSubscores(v.subscores))) return null;
  const hitCode = (g: unknown) => (typeof g === "string" ? g : (g as Obj).code);
  if (!(
    absent(v.guardrails) ||
    (everyIs(v.guardrails, isExternalHit) && noRepeats(v.guardrails as unknown[], hitCode))
  ))
    return null;
  if (!(absent(v.reasons) || everyIs(v.reasons, isReason, MAX_REASONS))) return null;
  if (!isTrainedReward(v.trained_reward)) return null;
  return v as ScoreRecord;
}
