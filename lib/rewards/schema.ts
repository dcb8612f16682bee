// A reward function's version document (docs/rewards.md "The document"): weighted components, each of one kind.
// Parsed here by one zod schema that feeds the CLI, the API, the editor and the tests; every problem names its path
// (`components.2.pattern`) and a regular expression that does not compile names its character.
import { z } from "zod";
import { compilePattern, PATTERN_FLAGS } from "@/lib/rewards/regex.ts";
import { canonicalJson } from "@/lib/verifier/canonical-json.ts";
import { zodIssues, type Issue } from "@/lib/verifier/schema.ts";
import crypto from "node:crypto";

export const COMPONENT_KINDS = ["verifier", "format", "exact_match", "math", "judge", "code"] as const;
export type ComponentKind = (typeof COMPONENT_KINDS)[number];

/** A document larger than this is refused before parsing (a code component's source is its bulk). */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

const weight = z.number({ error: "give the weight as a number" }).finite().min(-1000).max(1000).default(1);
const label = z.string().trim().min(1).max(100).optional();

const pattern = (what: string) =>
  z
    .string({ error: `give the ${what} as a string` })
    .min(1, { error: `the ${what} is empty` })
    .max(10_000, { error: "at most 10,000 characters" });

const flags = z.string().regex(PATTERN_FLAGS, { error: 'flags are any of "i", "m", "s", "u"' }).default("");

export const normalizeSchema = z
  .strictObject({
    trim: z.boolean().default(true),
    case: z.boolean().default(false),
    whitespace: z.boolean().default(false),
    thousands: z.boolean().default(false),
    currency: z.boolean().default(false),
  })
  .default({ trim: true, case: false, whitespace: false, thousands: false, currency: false });
export type Normalize = z.infer<typeof normalizeSchema>;

/** `$order.paid_amount` (a pointer into the case's snapshot) or absent: the ticket's reference_output. */
const reference = z
  .string()
  .regex(/^\$[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/, {
    error: 'a spec pointer such as "$order.paid_amount" (omit it to compare with the ticket\'s reference_output)',
  })
  .optional();

const verifierComponent = z.strictObject({
  kind: z.literal("verifier"),
  name: label,
  weight,
  /** A stored verifier config's hash; absent: the built-in default config. */
  config_hash: z
    .string()
    .regex(/^[0-9a-f]{64}$/, { error: "a stored verifier config's hash (64 hex digits)" })
    .optional(),
});

const formatComponent = z.strictObject({
  kind: z.literal("format"),
  name: label,
  weight,
  pattern: pattern("pattern"),
  flags,
});

const exactMatchComponent = z.strictObject({
  kind: z.literal("exact_match"),
  name: label,
  weight,
  /** Optional: its first capture group (or the whole match) is the answer; absent, the whole reply is. */
  pattern: pattern("pattern").optional(),
  flags,
  reference,
  normalize: normalizeSchema,
});

const mathComponent = z.strictObject({
  kind: z.literal("math"),
  name: label,
  weight,
  pattern: pattern("pattern").optional(),
  flags,
  reference,
  /** Relative tolerance: |answer − reference| ≤ tolerance · |reference|. */
  tolerance: z.number().finite().min(0).max(1).default(0.01),
  normalize: normalizeSchema,
});

export const DEFAULT_JUDGE_PROMPT = `You are grading a customer-service agent's conversation.

Rubric:
{{rubric}}

Customer's message:
{{input}}

Tool calls the agent made:
{{tools}}

Agent's final reply:
{{reply}}

Answer with JSON only: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}`;

const judgeComponent = z.strictObject({
  kind: z.literal("judge"),
  name: label,
  weight,
  rubric: z.string().trim().min(1, { error: "write the rubric the judge scores by" }).max(20_000),
  /** Placeholders: {{rubric}} {{input}} {{reply}} {{reference}} {{tools}}. */
  prompt: z.string().min(1).max(50_000).default(DEFAULT_JUDGE_PROMPT),
  /** Absent: VERITY_LLM_MODEL. */
  model: z.string().trim().min(1).max(200).optional(),
  /** An OpenAI-compatible base URL; absent: VERITY_LLM_BASE_URL (the key always comes from VERITY_LLM_API_KEY). */
  endpoint: z.url({ error: "an http(s) URL such as https://api.openai.com/v1" }).optional(),
  temperature: z.number().finite().min(0).max(2).default(0),
  max_in_flight: z.number().int().min(1).max(256).default(16),
  timeout_ms: z.number().int().min(100).max(600_000).default(30_000),
  /** Price per million tokens (prompt and completion), for the cost of a run. */
  price: z
    .strictObject({ input_per_million: z.number().finite().min(0), output_per_million: z.number().finite().min(0) })
    .default({ input_per_million: 0, output_per_million: 0 }),
  /** A deterministic stand-in answers instead of a model (the demo's judge): labelled simulated everywhere. */
  simulated: z.boolean().default(false),
});

const codeComponent = z.strictObject({
  kind: z.literal("code"),
  name: label,
  weight,
  /** Python defining cal_reward(payload) and printing the reward (docs/rewards.md "Code rewards and the sandbox"). */
  source: z.string().min(1, { error: "write the Python source" }).max(MAX_DOCUMENT_BYTES),
  timeout_ms: z.number().int().min(100).max(60_000).default(5_000),
});

export const componentSchema = z.discriminatedUnion(
  "kind",
  [verifierComponent, formatComponent, exactMatchComponent, mathComponent, judgeComponent, codeComponent],
  { error: `kind must be one of ${COMPONENT_KINDS.join(", ")}` },
);

export const versionDocumentSchema = z.strictObject({
  description: z.string().max(2_000).default(""),
  components: z.array(componentSchema).min(1, { error: "give at least one component" }).max(20),
});

export type RewardComponent = z.infer<typeof componentSchema>;
export type VersionDocument = z.infer<typeof versionDocumentSchema>;
export type JudgeComponent = z.infer<typeof judgeComponent>;
export type CodeComponent = z.infer<typeof codeComponent>;
export type MathComponent = z.infer<typeof mathComponent>;
export type ExactMatchComponent = z.infer<typeof exactMatchComponent>;

export type ParsedVersion = { ok: true; doc: VersionDocument; hash: string } | { ok: false; issues: Issue[] };

/** The regular expressions of the document that do not compile, each at its path with its character. */
function patternIssues(doc: VersionDocument): Issue[] {
  const out: Issue[] = [];
  doc.components.forEach((c, i) => {
    if ((c.kind === "format" || c.kind === "exact_match" || c.kind === "math") && c.pattern !== undefined) {
      const r = compilePattern(c.pattern, c.flags);
      if (!r.ok) out.push({ path: `components.${i}.pattern`, message: `does not compile: ${r.message}` });
    }
  });
  return out;
}

/** The SHA-256 of the document's canonical JSON (defaults applied): a version's identity. */
export function versionHash(doc: VersionDocument): string {
  return crypto.createHash("sha256").update(canonicalJson(doc)).digest("hex");
}

/** Validates a parsed JSON value as a version document (defaults applied). Python syntax is checked apart (async). */
export function parseVersionDocument(json: unknown): ParsedVersion {
  const r = versionDocumentSchema.safeParse(json);
  if (!r.success) return { ok: false, issues: zodIssues(r.error) };
  const issues = patternIssues(r.data);
  if (issues.length) return { ok: false, issues };
  return { ok: true, doc: r.data, hash: versionHash(r.data) };
}

/** A document the caller wrote itself (the demo's, a benchmark's, a test's): parsed, or thrown with every issue. */
export function versionDocument(json: unknown): VersionDocument {
  const r = parseVersionDocument(json);
  if (!r.ok) throw new Error(`invalid reward function document: ${formatIssues(r.issues)}`);
  return r.doc;
}

/** The text of a version document (a file, a paste, the editor): JSON, then the schema. */
export function parseVersionText(text: string): ParsedVersion {
  if (Buffer.byteLength(text, "utf8") > MAX_DOCUMENT_BYTES)
    return {
      ok: false,
      issues: [{ path: "", message: `the document is larger than ${MAX_DOCUMENT_BYTES / 1024} KB` }],
    };
  if (!text.trim())
    return { ok: false, issues: [{ path: "", message: 'the document is empty: give {"components": [...]}' }] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, issues: [{ path: "", message: `not valid JSON: ${(err as Error).message}` }] };
  }
  return parseVersionDocument(json);
}

export function formatIssues(issues: readonly Issue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
}

/** Names that are pages under /rewards/ (a function of that name could not be opened at /rewards/<name>). */
export const RESERVED_FUNCTION_NAMES: ReadonlySet<string> = new Set(["compare"]);

export const functionNameField = z
  .string({ error: "Name the reward function." })
  .trim()
  .min(1, { error: "Name the reward function (e.g. “answer-format”)." })
  .max(100, { error: "At most 100 characters." })
  .regex(/^[\p{L}\p{N}][\p{L}\p{N}._-]*$/u, {
    error: "Use letters, digits, dots, dashes and underscores, starting with a letter or digit.",
  })
  .refine((name) => !RESERVED_FUNCTION_NAMES.has(name), {
    error: (i) =>
      `“${i.input as string}” is taken by a page of the console (/rewards/${i.input as string}); pick another name.`,
  });

export const reasonField = z.string().trim().max(2_000, { error: "At most 2,000 characters." }).default("");

/** The salt of an audited sample when none is given: a probe and a retest of the same N take the same rollouts. */
export const AUDITED_SALT = "audited";

/** The scope of a reward run: a step range, a reproducible sample, a shadow-audit batch's items, or one ticket. */
export const runScopeSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("range"),
    from: z.number().int().min(0).optional(),
    to: z.number().int().min(0).optional(),
  }),
  z.strictObject({
    kind: z.literal("sample"),
    n: z.number().int().min(1).max(1_000_000),
    salt: z.string().min(1).max(200),
  }),
  z.strictObject({ kind: z.literal("batch"), batch: z.number().int().min(1) }),
  z.strictObject({ kind: z.literal("ticket"), ticket: z.string().min(1).max(200) }),
  /** The run's audited rollouts (ticket items with a review), or the n of them first by md5(salt:trajectory id). */
  z.strictObject({
    kind: z.literal("audited"),
    n: z.number().int().min(1).max(1_000_000).optional(),
    salt: z.string().min(1).max(200).default(AUDITED_SALT),
  }),
]);
export type RunScope = z.infer<typeof runScopeSchema>;

const intFlag = z
  .string()
  .regex(/^\d+$/, { error: "a whole number" })
  .transform(Number)
  .pipe(z.number().int().max(2_147_483_647, { error: "too large" }))
  .optional();

/** `verity reward run`'s flags: --run R with one of --from/--to, --sample N --salt S, --batch B, --ticket T. */
export const runFlagsSchema = z
  .object({
    run: z.string({ error: "name the run (--run R)" }).min(1, { error: "name the run (--run R)" }),
    from: intFlag,
    to: intFlag,
    sample: intFlag,
    salt: z.string().min(1).max(200).optional(),
    batch: intFlag,
    ticket: z.string().min(1).max(200).optional(),
    fresh: z.boolean().optional(),
  })
  .superRefine((v, ctx) => {
    const kinds = [
      v.from !== undefined || v.to !== undefined ? "--from/--to" : null,
      v.sample !== undefined || v.salt !== undefined ? "--sample/--salt" : null,
      v.batch !== undefined ? "--batch" : null,
      v.ticket !== undefined ? "--ticket" : null,
    ].filter(Boolean);
    if (kinds.length > 1)
      ctx.addIssue({ code: "custom", path: [], message: `give one scope, not ${kinds.join(" and ")}` });
    if ((v.sample === undefined) !== (v.salt === undefined))
      ctx.addIssue({
        code: "custom",
        path: [v.sample === undefined ? "sample" : "salt"],
        message: "--sample N and --salt S go together",
      });
    if (v.sample === 0) ctx.addIssue({ code: "custom", path: ["sample"], message: "at least 1" });
    if (v.batch === 0) ctx.addIssue({ code: "custom", path: ["batch"], message: "a batch id (1 or more)" });
    if (v.from !== undefined && v.to !== undefined && v.from > v.to)
      ctx.addIssue({ code: "custom", path: ["to"], message: `must not be below --from (${v.from})` });
  })
  .transform((v): { runId: string; scope: RunScope; fresh: boolean } => {
    const scope: RunScope =
      v.sample !== undefined
        ? { kind: "sample", n: v.sample, salt: v.salt! }
        : v.batch !== undefined
          ? { kind: "batch", batch: v.batch }
          : v.ticket !== undefined
            ? { kind: "ticket", ticket: v.ticket }
            : {
                kind: "range",
                ...(v.from !== undefined ? { from: v.from } : {}),
                ...(v.to !== undefined ? { to: v.to } : {}),
              };
    return { runId: v.run, scope, fresh: !!v.fresh };
  });

/**
 * `verity reward probe|retest`'s flags: --run R over the run's audited rollouts, all or --sample N of them (--salt S
 * picks which; the same N and salt take the same rollouts), --fresh (a retest scores both sides anew).
 */
export const rerunFlagsSchema = z
  .object({
    run: z.string({ error: "name the run (--run R)" }).min(1, { error: "name the run (--run R)" }),
    sample: intFlag,
    salt: z.string().min(1).max(200).optional(),
    fresh: z.boolean().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.sample === 0) ctx.addIssue({ code: "custom", path: ["sample"], message: "at least 1" });
  })
  .transform((v): { runId: string; scope: RunScope; fresh: boolean } => ({
    runId: v.run,
    scope: { kind: "audited", ...(v.sample !== undefined ? { n: v.sample } : {}), salt: v.salt ?? AUDITED_SALT },
    fresh: !!v.fresh,
  }));

/**
 * `POST /api/v1/rewards/{name}/reruns`'s body: a probe or a retest over the run's audited rollouts (all, or a
 * reproducible sample of `sample`), of the latest version or `version`.
 */
export const rerunBodySchema = z
  .strictObject({
    kind: z.enum(["probe", "retest"], { error: 'kind: "probe" or "retest"' }),
    run: z.string({ error: "name the run" }).min(1, { error: "name the run" }),
    sample: z.number({ error: "a whole number" }).int().min(1).max(1_000_000).optional(),
    salt: z.string().min(1).max(200).default(AUDITED_SALT),
    fresh: z.boolean().default(false),
    version: z.number().int().min(1).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.kind === "probe" && v.fresh)
      ctx.addIssue({ code: "custom", path: ["fresh"], message: "a probe scores every rollout anew" });
  });
