// The verifier config: weights, guardrail switches and caps, the hand-off outcome and the claims extractor.
// Changing any of it is a new config version, identified by configHash() on every record (verifier.md "Extending").
import { createHash } from "node:crypto";
import { z } from "zod";
import { canonicalJson } from "@/lib/verifier/canonical-json.ts";
import { DIMENSIONS, GUARDRAIL_CODES, type Dimension, type GuardrailCode } from "@/lib/verifier/codes.ts";
import { DEFAULT_RULE_PATTERNS } from "@/lib/verifier/rule-patterns.ts";
import { zodIssues, type Issue } from "@/lib/verifier/schema.ts";

export { GUARDRAIL_CODES, type GuardrailCode } from "@/lib/verifier/codes.ts";

/** Version of the scoring semantics (verifier.md). Weights and caps are config, not version. */
export const VERIFIER_VERSION = "1";

/** Weights must sum to 1 within this tolerance (float sums of decimals such as .45 + .2 + … are not exact). */
const WEIGHT_SUM_TOLERANCE = 1e-9;

const unit = z.number().min(0).max(1);

const regexSource = z
  .string()
  .min(1)
  .superRefine((source, ctx) => {
    try {
      new RegExp(source, "iu");
    } catch (err) {
      ctx.addIssue({ code: "custom", message: `invalid regular expression: ${(err as Error).message}` });
    }
  });

const weightsSchema = z
  .strictObject(Object.fromEntries(DIMENSIONS.map((d) => [d, unit])) as Record<Dimension, typeof unit>)
  .superRefine((w, ctx) => {
    const sum = DIMENSIONS.reduce((s, d) => s + w[d], 0);
    if (Math.abs(sum - 1) > WEIGHT_SUM_TOLERANCE) {
      ctx.addIssue({ code: "custom", message: `weights must sum to 1 (they sum to ${Number(sum.toPrecision(12))})` });
    }
  });

const guardrailSettingSchema = z.strictObject({ on: z.boolean(), cap: unit });
export type GuardrailSetting = z.infer<typeof guardrailSettingSchema>;

const KNOWN_CODES: ReadonlySet<string> = new Set(GUARDRAIL_CODES);
const guardrailsSchema = z
  .record(z.string(), guardrailSettingSchema)
  .superRefine((g, ctx) => {
    for (const code of Object.keys(g)) {
      if (!KNOWN_CODES.has(code)) {
        ctx.addIssue({
          code: "custom",
          path: [code],
          message: `unknown guardrail code "${code}" (known: ${GUARDRAIL_CODES.join(", ")})`,
        });
      }
    }
    for (const code of GUARDRAIL_CODES) {
      if (!(code in g)) ctx.addIssue({ code: "custom", path: [code], message: `missing guardrail "${code}"` });
    }
  })
  .transform((g) => g as Record<GuardrailCode, GuardrailSetting>);

const rulePatternsSchema = z.strictObject({
  negations: z.array(regexSource),
  write_tools: z.record(z.string(), z.array(regexSource)),
  mentions: z.record(
    z.string(),
    z.strictObject({ value: z.enum(["none", "number", "text", "date"]), patterns: z.array(regexSource) }),
  ),
  forbidden: z.record(z.string(), z.array(regexSource)),
});

export const verifierConfigSchema = z.strictObject({
  weights: weightsSchema,
  guardrails: guardrailsSchema,
  /** Outcome of a legal hand-off that did not also resolve the ticket (verifier.md outcome table). */
  handoff_outcome: unit,
  claims: z.strictObject({ extractor: z.enum(["rules", "llm"]), rules: rulePatternsSchema }),
});
export type VerifierConfig = z.infer<typeof verifierConfigSchema>;

function on(cap: number): GuardrailSetting {
  return { on: true, cap };
}
function off(cap: number): GuardrailSetting {
  return { on: false, cap };
}

/** Defaults of domain.md: first six guardrails on, the five that need extra structured signals off. */
export const DEFAULT_CONFIG: VerifierConfig = deepFreeze(
  verifierConfigSchema.parse({
    weights: { outcome: 0.45, policy: 0.2, evidence: 0.2, efficiency: 0.1, communication: 0.05 },
    guardrails: {
      customer_harm: on(0.25),
      unauthorized_write: on(0.3),
      duplicate_side_effect: on(0.3),
      empty_promise: on(0.35),
      policy_error: on(0.45),
      missing_evidence: on(0.55),
      high_risk_unchecked: off(0.3),
      approval_bypass: off(0.3),
      privacy_overreach: off(0.25),
      stale_submission: off(0.45),
      tool_missing: off(0.55),
    },
    handoff_outcome: 0.45,
    claims: { extractor: "rules", rules: DEFAULT_RULE_PATTERNS },
  }),
);

export type ConfigResult = { ok: true; config: VerifierConfig } | { ok: false; issues: Issue[] };

/**
 * Validates a config document. The document may be partial: it is merged key by key onto DEFAULT_CONFIG first
 * (so `{"guardrails": {"tool_missing": {"on": true}}}` turns one guardrail on), then the whole is validated — an
 * unknown key anywhere, an unknown guardrail code or weights that do not sum to 1 are rejected.
 */
export function parseVerifierConfig(input: unknown): ConfigResult {
  if (!isPlainObject(input)) return { ok: false, issues: [{ path: "", message: "config must be a JSON object" }] };
  const parsed = verifierConfigSchema.safeParse(mergeDeep(DEFAULT_CONFIG, input));
  return parsed.success
    ? { ok: true, config: deepFreeze(parsed.data) }
    : { ok: false, issues: zodIssues(parsed.error) };
}

const hashCache = new WeakMap<object, string>();

/** "sha256:" + hex sha256 of the canonical JSON (sorted keys) of the config: independent of key order. */
export function configHash(config: VerifierConfig): string {
  let hash = hashCache.get(config);
  if (!hash) {
    hash = `sha256:${createHash("sha256").update(canonicalJson(config)).digest("hex")}`;
    hashCache.set(config, hash);
  }
  return hash;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Plain objects merge per key; anything else (arrays included) in `override` replaces. */
function mergeDeep(base: unknown, override: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(override)) return override;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) out[key] = mergeDeep(base[key], value);
  return out;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
