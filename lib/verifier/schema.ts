// The wire formats of formats.md as zod schemas: the single source of truth for the ingest API, the CLI, the
// database layer and the UI. Top-level objects are strict (a typo must not be silently dropped); the verifier spec
// is strict all the way down for the same reason (a misspelt `after` would silently relax a case). Objects that
// carry data from other systems (steps, tickets, tables) are loose so that extra fields survive a round trip.
import { z } from "zod";
import { DIMENSIONS, GUARDRAIL_CODES, HANDOFF_MODES, HARM_OPS, REGISTRY_KINDS } from "@/lib/verifier/codes.ts";
import {
  INT4_MAX,
  ID_FORBIDDEN,
  ID_TOO_LONG,
  idCharacterProblem,
  MAX_CLAIMS,
  MAX_ID_LENGTH,
  MAX_REASONS,
  MAX_STEPS,
} from "@/lib/verifier/limits.ts";

const tooLong = { error: (iss: { input?: unknown }) => `${ID_TOO_LONG} (got ${String(iss.input).length})` };
const noBadCharacter = (s: string) => !ID_FORBIDDEN.test(s);
const badCharacter = { error: (iss: { input?: unknown }) => idCharacterProblem(String(iss.input)) ?? undefined };
/** Text that lands in an index (reason tools and fields): at most MAX_ID_LENGTH characters (lib/verifier/limits.ts). */
const indexedText = z.string().max(MAX_ID_LENGTH, tooLong);
/** An id, name or code that may be empty: limited in length and in its characters (lib/verifier/limits.ts). */
const idText = z.string().max(MAX_ID_LENGTH, tooLong).refine(noBadCharacter, badCharacter);
/** Ids (trajectory, run, ticket, group, category), tool and argument names, codes: a non-empty idText. */
const id = z.string().min(1).max(MAX_ID_LENGTH, tooLong).refine(noBadCharacter, badCharacter);
/** The id schema, for inputs outside the wire formats that name the same things (--run, platform payload ids). */
export const idSchema = id;
const unit = z.number().min(0).max(1);
/** A count or a step: an integer from 0 to INT4_MAX, as the ledger's 32-bit columns store it. */
const nonNegInt = z
  .number()
  .int()
  .nonnegative()
  .max(INT4_MAX, { error: `at most ${INT4_MAX} (the ledger stores it as a 32-bit integer)` });

/** A list of at most `max` entries, named by what they are, counted in the message. */
function boundedList<T extends z.ZodType>(item: T, max: number, what: string) {
  return z.array(item).max(max, {
    error: (iss) => `at most ${max} ${what} (got ${(iss.input as unknown[]).length})`,
  });
}

/**
 * Refuses a repeated entry where a repeat means nothing (a guardrail hit twice, a tool claimed twice): the repeat is
 * named at its own index, with the index of its first occurrence. `keyOf` says what counts as the same entry and
 * `field` which of the entry's fields to name (none for a list of plain values).
 */
function distinct<T>(keyOf: (v: T) => unknown, what: string, field?: string) {
  return (list: T[], ctx: z.RefinementCtx) => {
    const first = new Map<string, number>();
    list.forEach((v, i) => {
      const key = JSON.stringify(keyOf(v));
      const j = first.get(key);
      if (j === undefined) first.set(key, i);
      else
        ctx.addIssue({
          code: "custom",
          path: field ? [i, field] : [i],
          message: `repeats ${what} ${key} (first at index ${j}): each is listed once`,
        });
    });
  };
}
/** The trainer's own reward (`trained_reward`): any finite number, or null for none; never on the ledger's scale. */
const trainedReward = z
  .number({ error: (iss) => `expected a finite number or null (got ${describeInput(iss.input)})` })
  .nullable()
  .optional();
function describeInput(v: unknown): string {
  if (typeof v === "number") return String(v);
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return v === undefined ? "nothing" : Array.isArray(v) ? "an array" : typeof v;
}
const instant = z.iso.datetime({ offset: true, error: "expected an ISO-8601 instant with a time zone" });
/** An ISO-8601 instant with a time zone (for validators that check single fields, e.g. lib/ingest/fast-validate.ts). */
export const instantSchema = instant;
// A JSON object kept as parsed: z.record would copy it and drop a `__proto__` key, which JSON.parse makes an own key
// and which tool arguments may carry like any other.
const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
const args = z.custom<Record<string, unknown>>(isJsonObject, { error: "expected an object" });
/** Any JSON value (undefined is not one). */
const jsonValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), args], {
  error: "expected a JSON value",
});

// ---------- Case (formats §1) ----------

/** A tool name, or `{any_of: [names]}` satisfied by any of them. */
export const readRequirementSchema = z.union([id, z.strictObject({ any_of: z.array(id).min(1) })], {
  error: 'expected a tool name or {"any_of": [tool names]}',
});
const toolCallSpec = z.strictObject({ tool: id, args: args.optional() });

const harmRuleSchema = z
  .strictObject({ tool: id, arg: id.optional(), op: z.enum(HARM_OPS).optional(), value: jsonValue.optional() })
  .refine((r) => (r.arg === undefined) === (r.op === undefined) && (r.op === undefined) === (r.value === undefined), {
    error: "a harm rule has either only `tool`, or all of `arg`, `op` and `value`",
  });

export const verifierSpecSchema = z.strictObject({
  required_reads: z.array(readRequirementSchema).optional(),
  policy: z
    .strictObject({
      query: toolCallSpec.optional(),
      rules: z.array(z.strictObject({ tool: id, arg: id, equals: jsonValue })).optional(),
    })
    .optional(),
  allowed_writes: z.array(z.union([id, toolCallSpec], { error: "expected a tool name or {tool, args}" })).optional(),
  required_writes: z
    .array(z.strictObject({ tool: id, args: args.optional(), after: z.array(readRequirementSchema).optional() }))
    .optional(),
  harm: z.array(harmRuleSchema).optional(),
  must_mention: z.array(z.strictObject({ key: id, value: jsonValue.optional() })).optional(),
  forbidden: z.array(id).optional(),
  handoff: z.enum(HANDOFF_MODES).optional(),
  step_budget: nonNegInt.optional(),
  risk: z
    .strictObject({
      tools: z.array(id).min(1),
      arg: id,
      threshold: z.union([z.number(), z.string()]),
      check: readRequirementSchema,
    })
    .optional(),
  approval: z.strictObject({ tools: z.array(id).min(1) }).optional(),
  privacy: z.strictObject({ customer: jsonValue, customer_args: z.array(id).min(1) }).optional(),
  deadline: z.string().min(1).optional(),
});

export const ticketSchema = z.looseObject({
  id,
  category: id,
  customer_id: idText.optional(),
  message: z.string(),
  created_at: instant.optional(),
});

export const caseSchema = z.strictObject({
  kind: z.literal("case"),
  ticket: ticketSchema,
  env_snapshot: args,
  verifier_spec: verifierSpecSchema,
});

// ---------- Claims (verifier.md "Claims") ----------

export const mentionSchema = z.strictObject({
  key: id,
  value: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional(),
});

export const claimsSchema = z.strictObject({
  claimed_writes: boundedList(id, MAX_CLAIMS, "claimed writes")
    .superRefine(distinct((t) => t, "the tool"))
    .default([]),
  // A mention repeated with its value is kept as extracted (the extractors do not merge them): bounded only.
  mentioned: boundedList(mentionSchema, MAX_CLAIMS, "mentions").default([]),
  forbidden_hits: boundedList(id, MAX_CLAIMS, "forbidden hits")
    .superRefine(distinct((c) => c, "the code"))
    .default([]),
});

// ---------- Rollout (formats §2) ----------

/** Reward platforms pass tool inputs as JSON strings; those are parsed, anything else is kept as text. */
function parseToolInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const toolStepSchema = z.looseObject({
  type: z.literal("tool"),
  name: id,
  input: z
    .union([args, z.string().transform(parseToolInput)], { error: "expected an object or a JSON string" })
    .default({}),
  output: z.unknown().optional(),
  status: z.enum(["success", "failed"]),
});
export const llmStepSchema = z.looseObject({
  type: z.literal("llm"),
  name: z.string().optional(),
  output: z.unknown().optional(),
});
export const stepSchema = z.discriminatedUnion("type", [toolStepSchema, llmStepSchema]);

export const sandboxWriteSchema = z.looseObject({
  tool: id,
  args: args.default({}),
  step: nonNegInt.optional(),
  at: instant.optional(),
});

export const registryEntrySchema = z.looseObject({ name: id, kind: z.enum(REGISTRY_KINDS) });

export const rolloutSchema = z
  .strictObject({
    kind: z.literal("rollout"),
    trajectory_id: id,
    run_id: id,
    step: nonNegInt,
    group_id: id.nullable().optional(),
    sample_index: nonNegInt.nullable().optional(),
    ticket_id: id,
    case: caseSchema.optional(),
    trajectory: z.looseObject({ steps: boundedList(stepSchema, MAX_STEPS, "steps"), final_reply: z.string() }),
    sandbox: z.looseObject({
      writes: z.array(sandboxWriteSchema),
      tables: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))).default({}),
    }),
    tool_registry: z.array(registryEntrySchema),
    claims: claimsSchema.nullable().optional(),
    trained_reward: trainedReward,
  })
  .superRefine((r, ctx) => {
    // Cross-field checks that no single field schema can express; each names the offending path.
    if (r.case && r.case.ticket.id !== r.ticket_id) {
      ctx.addIssue({
        code: "custom",
        path: ["case", "ticket", "id"],
        message: `embedded case is for ticket ${r.case.ticket.id}, the rollout for ${r.ticket_id}`,
      });
    }
    const n = r.trajectory.steps.length;
    r.sandbox.writes.forEach((w, i) => {
      if (w.step !== undefined && w.step >= n) {
        ctx.addIssue({
          code: "custom",
          path: ["sandbox", "writes", i, "step"],
          message: `step ${w.step} is outside the trajectory (${n} steps)`,
        });
      }
    });
    const seen = new Set<string>();
    r.tool_registry.forEach((t, i) => {
      if (seen.has(t.name)) {
        ctx.addIssue({ code: "custom", path: ["tool_registry", i, "name"], message: `duplicate tool ${t.name}` });
      }
      seen.add(t.name);
    });
  });

// ---------- Score record (formats §3) ----------

export const subscoresSchema = z.strictObject(
  Object.fromEntries(DIMENSIONS.map((d) => [d, unit])) as Record<(typeof DIMENSIONS)[number], typeof unit>,
);

export const reasonSchema = z.looseObject({
  dimension: z.enum(DIMENSIONS).optional(),
  guardrail: z.enum(GUARDRAIL_CODES).optional(),
  code: id,
  tool: indexedText.optional(),
  field: indexedText.optional(),
  pointer: z.string().optional(),
  path: z.string().optional(),
  expected: z.unknown().optional(),
  actual: z.unknown().optional(),
  message: z.string(),
});

export const guardrailHitSchema = z.strictObject({
  code: z.enum(GUARDRAIL_CODES),
  cap: unit,
  evidence: z.record(z.string(), z.unknown()),
});

const recordIdentity = {
  trajectory_id: id,
  run_id: id,
  step: nonNegInt,
  ticket_id: id,
  group_id: id.nullable().optional(),
  sample_index: nonNegInt.nullable().optional(),
};
const verifierCommon = {
  kind: z.literal("score"),
  source: z.literal("verifier"),
  verifier_version: id,
  config_hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, { error: "expected sha256:<64 hex digits>" }),
  claims_source: idText.nullable(),
  reasons: boundedList(reasonSchema, MAX_REASONS, "reasons"),
  trained_reward: trainedReward,
};
/** A verifier record's guardrail hits: each guardrail at most once (so at most one per guardrail code). */
const guardrailHits = z
  .array(guardrailHitSchema)
  .superRefine(distinct((g: { code: string }) => g.code, "the guardrail", "code"));
const noGuardrails = z.array(guardrailHitSchema).max(0);

export const scoredRecordSchema = z.strictObject({
  ...recordIdentity,
  ...verifierCommon,
  status: z.literal("scored"),
  raw_reward: unit,
  reward: unit,
  capped: z.boolean(),
  subscores: subscoresSchema,
  guardrails: guardrailHits,
  deciding_guardrail: z.enum(GUARDRAIL_CODES).nullable(),
  claims: claimsSchema,
  handoff: z.boolean(),
  tool_steps: nonNegInt,
});
const specErrorRecordSchema = z.strictObject({
  ...recordIdentity,
  ...verifierCommon,
  status: z.literal("spec_error"),
  raw_reward: z.null(),
  reward: z.null(),
  capped: z.literal(false),
  subscores: z.null(),
  guardrails: noGuardrails,
  deciding_guardrail: z.null(),
  claims: claimsSchema.nullable(),
  handoff: z.boolean(),
  tool_steps: nonNegInt,
});
// A malformed rollout may lack even its identity, so every field that comes from it is nullable here.
const inputErrorRecordSchema = z.strictObject({
  ...verifierCommon,
  trajectory_id: idText.nullable(),
  run_id: idText.nullable(),
  step: nonNegInt.nullable(),
  ticket_id: idText.nullable(),
  group_id: idText.nullable().optional(),
  sample_index: nonNegInt.nullable().optional(),
  status: z.literal("input_error"),
  raw_reward: z.null(),
  reward: z.null(),
  capped: z.literal(false),
  subscores: z.null(),
  guardrails: noGuardrails,
  deciding_guardrail: z.null(),
  claims: z.null(),
  handoff: z.null(),
  tool_steps: z.null(),
});

/** A record written by this verifier (status scored, spec_error or input_error). */
export const verifierScoreSchema = z.discriminatedUnion("status", [
  scoredRecordSchema,
  specErrorRecordSchema,
  inputErrorRecordSchema,
]);

/** A record computed elsewhere: accepted into the ledger, marked not reproducible. */
export const externalScoreSchema = z.strictObject({
  kind: z.literal("score").optional(),
  source: z.literal("external"),
  ...recordIdentity,
  reward: unit,
  raw_reward: unit.nullable().optional(),
  subscores: subscoresSchema.partial().optional(),
  guardrails: z
    .array(
      z.union([
        z.enum(GUARDRAIL_CODES),
        z.looseObject({ code: z.enum(GUARDRAIL_CODES), cap: unit.optional(), evidence: z.unknown().optional() }),
      ]),
    )
    .superRefine(distinct((g) => (typeof g === "string" ? g : g.code), "the guardrail"))
    .optional(),
  reasons: boundedList(reasonSchema, MAX_REASONS, "reasons").optional(),
  trained_reward: trainedReward,
});

/** Any ledger entry. A record without `source` is a verifier record (formats §3 omits the field). */
export const scoreRecordSchema = z.preprocess(
  (v) => (v && typeof v === "object" && !Array.isArray(v) && !("source" in v) ? { ...v, source: "verifier" } : v),
  z.discriminatedUnion("source", [verifierScoreSchema, externalScoreSchema]),
);

// ---------- Review (formats §5) ----------

export const reviewSchema = z.strictObject({
  trajectory_id: id,
  reviewer: z.email(),
  subscores: subscoresSchema,
  guardrails: z.array(z.enum(GUARDRAIL_CODES)),
  reward: unit,
  claims: claimsSchema,
  note: z.string().optional(),
  seconds_spent: z.number().nonnegative().optional(),
});

// ---------- Types ----------

export type ReadRequirement = z.infer<typeof readRequirementSchema>;
export type VerifierSpec = z.infer<typeof verifierSpecSchema>;
export type Case = z.infer<typeof caseSchema>;
export type Claims = z.infer<typeof claimsSchema>;
export type Mention = z.infer<typeof mentionSchema>;
export type Step = z.infer<typeof stepSchema>;
export type ToolStep = z.infer<typeof toolStepSchema>;
export type SandboxWrite = z.infer<typeof sandboxWriteSchema>;
export type RegistryEntry = z.infer<typeof registryEntrySchema>;
export type Rollout = z.infer<typeof rolloutSchema>;
export type Subscores = z.infer<typeof subscoresSchema>;
export type Reason = z.infer<typeof reasonSchema>;
export type GuardrailHit = z.infer<typeof guardrailHitSchema>;
export type VerifierScoreRecord = z.infer<typeof verifierScoreSchema>;
export type ExternalScoreRecord = z.infer<typeof externalScoreSchema>;
export type ScoreRecord = z.infer<typeof scoreRecordSchema>;
export type Review = z.infer<typeof reviewSchema>;

// ---------- Errors ----------

export type Issue = { path: string; message: string };

/**
 * Flattens a ZodError into `{path, message}` pairs with dotted paths (`trajectory.steps.3.status`); the root is "".
 * An unknown field is reported at its own path, so the message points at the typo rather than at its parent.
 */
export function zodIssues(error: z.ZodError): Issue[] {
  const out: Issue[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        out.push({ path: base ? `${base}.${key}` : key, message: `unknown field "${key}"` });
      }
    } else {
      out.push({ path: base, message: issue.message });
    }
  }
  return out;
}
