// What comes in when a verifier config is stored — a JSON document (a file for `verity config add`, an upload or a
// paste on the admin configs page) and a name — and how it is checked. The document itself is validated by the
// verifier's own schema (lib/verifier/config.ts): a partial document is merged onto the default config first.
import { z } from "zod";
import { configHash, parseVerifierConfig, type VerifierConfig } from "@/lib/verifier/config.ts";
import type { Issue } from "@/lib/verifier/schema.ts";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";

/** A config document larger than this is refused before parsing (the default config is ~10 KB). */
export const MAX_CONFIG_BYTES = 512 * 1024;

export const configNameField = z
  .string({ error: "Name the config." })
  .trim()
  .min(1, { error: "Name the config (e.g. “strict-evidence”)." })
  .max(100, { error: "At most 100 characters." })
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} ._-]*$/u, {
    error: "Use letters, digits, spaces, dots, dashes and underscores, starting with a letter or digit.",
  });

/** The form's fields besides the document (which may come from a file or the text area). */
export const addConfigFormInput = z.object({
  name: z
    .string()
    .trim()
    .max(100)
    .optional()
    .transform((s) => s || undefined),
  makeDefault: z
    .enum(["on", "true"])
    .optional()
    .transform((v) => v !== undefined),
});

export type ParsedConfigDocument = { ok: true; config: VerifierConfig; hash: string } | { ok: false; issues: Issue[] };

/**
 * Parses the text of a config document: JSON, then the verifier config schema. Every problem is reported with its
 * dotted path (`weights`, `guardrails.foo`, `claims.rules.negations.2`); a JSON syntax error with where it is.
 */
export function parseConfigDocument(text: string): ParsedConfigDocument {
  if (Buffer.byteLength(text, "utf8") > MAX_CONFIG_BYTES) {
    return { ok: false, issues: [{ path: "", message: `the config is larger than ${MAX_CONFIG_BYTES / 1024} KB` }] };
  }
  if (!text.trim())
    return {
      ok: false,
      issues: [{ path: "", message: 'the config is empty: give a JSON object such as {"handoff_outcome": 0.5}' }],
    };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, issues: [{ path: "", message: `not valid JSON: ${(err as Error).message}` }] };
  }
  const r = parseVerifierConfig(json);
  if (!r.ok) return r;
  return { ok: true, config: r.config, hash: configHash(r.config) };
}

/** "path: message" per issue, one string (CLI errors, a form's summary). */
export function formatConfigIssues(issues: Issue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
}

/** A default name from a file name: `configs/strict-evidence.json` → `strict-evidence`. */
export function nameFromFileName(fileName: string): string | undefined {
  const base = fileName.split(/[\\/]/).pop() ?? "";
  const stem = base.replace(/\.json$/i, "").trim();
  return stem || undefined;
}

export type AddConfigFormResult =
  | { ok: true; name: string; config: VerifierConfig; makeDefault: boolean }
  | { ok: false; fieldErrors: Record<string, string[]>; values: Record<string, string> };

/**
 * The admin page's form: a name, the document as an uploaded file (`file`) or pasted text (`config`), and
 * `makeDefault`. Errors are per field: the document's issues go under the field it came from, each with its path.
 */
export async function parseAddConfigForm(form: FormData): Promise<AddConfigFormResult> {
  const fields = addConfigFormInput.safeParse({
    name: form.get("name") ?? undefined,
    makeDefault: form.get("makeDefault") ?? undefined,
  });
  const pasted = typeof form.get("config") === "string" ? String(form.get("config")) : "";
  const file = form.get("file");
  const upload = typeof file === "object" && file !== null && file.size > 0 ? file : null;
  const values = { name: typeof form.get("name") === "string" ? String(form.get("name")) : "", config: pasted };
  const fieldErrors: Record<string, string[]> = {};
  if (!fields.success) fieldErrors.name = ["At most 100 characters."];

  let source: "file" | "config" = "config";
  let text = pasted;
  if (upload && pasted.trim()) {
    fieldErrors.config = ["Upload a file or paste a config, not both."];
  } else if (upload) {
    source = "file";
    if (upload.size > MAX_CONFIG_BYTES) fieldErrors.file = [`The file is larger than ${MAX_CONFIG_BYTES / 1024} KB.`];
    else text = await upload.text();
  } else if (!pasted.trim()) {
    fieldErrors.config = ["Paste a config or choose a JSON file."];
  }

  const name = configNameField.safeParse(
    (fields.success ? fields.data.name : undefined) ?? (upload ? nameFromFileName(upload.name) : undefined) ?? "",
  );
  if (!name.success && !fieldErrors.name) fieldErrors.name = [name.error.issues[0].message];

  let config: VerifierConfig | null = null;
  if (!fieldErrors.config && !fieldErrors.file) {
    const doc = parseConfigDocument(text);
    if (doc.ok) config = doc.config;
    else fieldErrors[source] = doc.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  }
  if (Object.keys(fieldErrors).length || !config || !name.success || !fields.success)
    return { ok: false, fieldErrors, values };
  return { ok: true, name: name.data, config, makeDefault: fields.data.makeDefault };
}

/** The largest sample a config dry run takes (lib/verifier-configs/dry-run.ts holds the sample's ids). */
export const MAX_DRY_RUN_SAMPLE = 100_000;

/**
 * The admin's config dry run: a run, a config ("default" or a stored config's id) and, optionally, a sample size
 * (blank: the whole run) and the seed that makes the sample reproducible (blank: "1").
 */
export const configDryRunInput = z.object({
  runId: z.string({ error: "Pick a run." }).trim().min(1, { error: "Pick a run." }).max(200),
  config: z.union([z.literal("default"), z.coerce.number().int().positive().max(INT4_MAX)], {
    error: "Pick a config.",
  }),
  sample: z.preprocess(
    (v) => (v === null || (typeof v === "string" && v.trim() === "") ? undefined : v),
    z.coerce
      .number({ error: "A sample size is a whole number of rollouts." })
      .int({ error: "A sample size is a whole number of rollouts." })
      .min(1, { error: "A sample holds at least 1 rollout." })
      .max(MAX_DRY_RUN_SAMPLE, {
        error: `A sample holds at most ${MAX_DRY_RUN_SAMPLE.toLocaleString("en-US")} rollouts.`,
      })
      .optional(),
  ),
  seed: z
    .string()
    .trim()
    .max(100, { error: "At most 100 characters." })
    .optional()
    .transform((s) => s || "1"),
});
