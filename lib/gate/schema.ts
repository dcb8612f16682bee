// Inputs of the audit gate: the rules file (`verity gate --rules FILE`, docs/gate.md), the API's query and the CLI's
// flags. Every field is checked, and a bad one is named with its rule and why: "rule handoff, field ceiling: must be
// at most 1". Rates are fractions; slopes are per 1,000 steps like the run's thresholds.
import { z } from "zod";

export const GATE_RULES = [
  "hit_rate",
  "handoff",
  "agreement",
  "extraction",
  "trained_mismatch",
  "reward_hacking",
  "ordering",
  "ledger_rank",
] as const;
export type GateRuleKey = (typeof GATE_RULES)[number];

/** What a rule's failure means: `stop` fails the gate, `warn` is a warning in a report that still passes. */
export const GATE_SEVERITIES = ["stop", "warn"] as const;
export type GateSeverity = (typeof GATE_SEVERITIES)[number];

/** The longest window the gate takes, in steps (a run's steps are 32-bit integers). */
export const MAX_WINDOW_STEPS = 2147483647;

const fraction = z
  .number({ error: "must be a number" })
  .min(0, { error: "must be 0 or more" })
  .max(1, { error: "must be at most 1" });
const count = z
  .number({ error: "must be a number" })
  .int({ error: "must be a whole number" })
  .min(1, { error: "must be 1 or more" })
  .max(1_000_000, { error: "must be at most 1000000" });
const steps = z
  .number({ error: "must be a number" })
  .int({ error: "must be a whole number of steps" })
  .min(1, { error: "must be 1 or more" })
  .max(MAX_WINDOW_STEPS, { error: `must be at most ${MAX_WINDOW_STEPS}` });
const slope = z
  .number({ error: "must be a number" })
  .gt(0, { error: "must be above 0" })
  .max(1000, { error: "must be at most 1000" });

const severity = z.enum(GATE_SEVERITIES, { error: 'must be "stop" or "warn"' });

/** The fields of each rule; every field is optional (the run's default fills it in). */
const ruleShapes = {
  hit_rate: { low: fraction, high: fraction, min_rollouts: count, severity },
  handoff: { ceiling: fraction, min_rollouts: count, severity },
  agreement: { floor: fraction, min_items: count, severity },
  extraction: { floor: fraction, min_items: count, severity },
  trained_mismatch: { ceiling: fraction, min_rollouts: count, severity },
  // The corrected curve takes windows of at most 10⁹ steps.
  reward_hacking: {
    rise: slope,
    audit_window: steps.max(1_000_000_000, { error: "must be at most 1000000000" }),
    min_windows: count,
    min_reviews: count,
    severity,
  },
  ordering: { floor: fraction, min_judgements: count, severity },
  // McNemar's significance level: above 0, at most 0.5.
  ledger_rank: {
    alpha: z
      .number({ error: "must be a number" })
      .gt(0, { error: "must be above 0" })
      .max(0.5, { error: "must be at most 0.5" }),
    min_items: count,
    severity,
  },
} as const;

const ruleOf = <K extends GateRuleKey>(key: K) =>
  z.union([z.literal(false), z.strictObject(ruleShapes[key]).partial()], {
    error: "must be an object of the rule's fields, or false to turn the rule off",
  });

export const gateRulesFileSchema = z.strictObject({
  window_steps: steps.optional(),
  rules: z
    .strictObject({
      hit_rate: ruleOf("hit_rate").optional(),
      handoff: ruleOf("handoff").optional(),
      agreement: ruleOf("agreement").optional(),
      extraction: ruleOf("extraction").optional(),
      trained_mismatch: ruleOf("trained_mismatch").optional(),
      reward_hacking: ruleOf("reward_hacking").optional(),
      ordering: ruleOf("ordering").optional(),
      ledger_rank: ruleOf("ledger_rank").optional(),
    })
    .optional(),
});
export type GateRulesFile = z.infer<typeof gateRulesFileSchema>;

/** A zod issue of the rules file as one sentence: which rule, which field, why. */
function describeIssue(issue: z.core.$ZodIssue): string[] {
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    if (path.length === 0) return [`unknown top-level field ${keys} (the file takes "window_steps" and "rules")`];
    if (path.length === 1) return [`unknown rule ${keys} (the rules are ${GATE_RULES.join(", ")})`];
    const rule = path[1] as GateRuleKey;
    return [`rule ${rule}: unknown field ${keys} (it takes ${Object.keys(ruleShapes[rule] ?? {}).join(", ")})`];
  }
  if (issue.code === "invalid_union" && path.length === 2) {
    // A rule that is an object with bad fields: the object branch's (the second option's) issues name them.
    const branch = issue.errors[1];
    if (branch?.length && branch.every((i) => i.code !== "invalid_type" || i.path.length > 0))
      return branch.flatMap((i) => describeIssue({ ...i, path: [...path, ...i.path] }));
  }
  if (path[0] === "rules" && path.length >= 3)
    return [`rule ${path[1]}, field ${path.slice(2).join(".")}: ${issue.message}`];
  if (path[0] === "rules" && path.length === 2) return [`rule ${path[1]}: ${issue.message}`];
  if (path.length === 0)
    return [`the file ${issue.message === "Invalid input" ? "must be a JSON object" : issue.message}`];
  return [`${path.join(".")}: ${issue.message}`];
}

/** Cross-field checks zod's per-field schema cannot make. */
function crossCheck(file: GateRulesFile): string[] {
  const hit = file.rules?.hit_rate;
  if (hit && hit.low !== undefined && hit.high !== undefined && !(hit.low < hit.high))
    return ["rule hit_rate, field high: must be above low"];
  return [];
}

/**
 * Parses a rules file's text. Errors name the rule and the field; JSON syntax errors say where the parser stopped.
 */
export function parseGateRulesFile(text: string): { ok: true; file: GateRulesFile } | { ok: false; errors: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, errors: [`not valid JSON: ${(err as Error).message}`] };
  }
  if (json === null || typeof json !== "object" || Array.isArray(json))
    return { ok: false, errors: ['the file must be a JSON object with "rules" (and optionally "window_steps")'] };
  const parsed = gateRulesFileSchema.safeParse(json);
  if (!parsed.success) return { ok: false, errors: [...new Set(parsed.error.issues.flatMap(describeIssue))] };
  const cross = crossCheck(parsed.data);
  return cross.length ? { ok: false, errors: cross } : { ok: true, file: parsed.data };
}

const windowParam = z
  .string()
  .regex(/^\d+$/, { error: "must be a whole number of steps, 1 or more" })
  .transform(Number)
  .pipe(steps);

/** GET /api/v1/runs/{run}/gate's query: `window_steps` only; anything else is an error naming it. */
export const gateQuerySchema = z.strictObject({ window_steps: windowParam.optional() });

/** `verity gate`'s flags after parseArgs. */
export const gateCliSchema = z.strictObject({
  run: z.string({ error: "is required" }).trim().min(1, { error: "is required" }).max(200),
  "window-steps": windowParam.optional(),
  rules: z.string().min(1, { error: "must name a file" }).optional(),
  json: z.boolean().optional(),
});

/** A query or flag schema's issues as "path: message" (an unknown key named as such). */
export function queryIssues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) =>
    i.code === "unrecognized_keys"
      ? {
          path: "",
          message: `unknown parameter ${i.keys.map((k) => `"${k}"`).join(", ")} (the gate takes window_steps)`,
        }
      : { path: i.path.join("."), message: i.message },
  );
}
