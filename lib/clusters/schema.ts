import { z } from "zod";
import { isClusterKey } from "@/lib/clusters/keys.ts";
import type { SpecChange } from "@/lib/clusters/spec-change.ts";
import { HANDOFF_MODES } from "@/lib/verifier/codes.ts";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";

// The one parser of every outside input of the clusters domain: the page's URL, the token API's query, the CLI's
// flags (mapped onto the same names) and the lead's triage form.

/** Entries with a reward strictly below this are "low-scoring" (the population that is clustered). */
export const DEFAULT_THRESHOLD = 0.5;

const int = z.coerce
  .number()
  .int("must be a whole number")
  .min(0, "must be 0 or more")
  .max(INT4_MAX, `must be at most ${INT4_MAX}`);

export const clusterWindowSchema = z
  .object({
    run: z.string().trim().min(1, "is required").max(200),
    step_from: int.optional(),
    step_to: int.optional(),
    threshold: z.coerce.number().gt(0, "must be above 0").max(1, "must be at most 1").default(DEFAULT_THRESHOLD),
  })
  .refine((w) => w.step_from === undefined || w.step_to === undefined || w.step_from <= w.step_to, {
    message: "must not be after step_to",
    path: ["step_from"],
  });

export type ClusterWindowParams = z.infer<typeof clusterWindowSchema>;

/** A parsed window: the run, the step bounds as given (open when absent) and the reward threshold. */
export type ClusterWindow = { runId: string; from?: number; to?: number; threshold: number };

export function toWindow(p: ClusterWindowParams): ClusterWindow {
  return { runId: p.run, from: p.step_from, to: p.step_to, threshold: p.threshold };
}

const keySchema = z.string().max(1000).refine(isClusterKey, "is not a cluster key");

/** The page: the window (run optional: the first run is shown), the selected cluster and the overview's view. */
export const clusterPageSchema = z
  .object({
    run: z.string().trim().min(1).max(200).optional(),
    step_from: int.optional(),
    step_to: int.optional(),
    threshold: z.coerce.number().gt(0, "must be above 0").max(1, "must be at most 1").optional(),
    c: keySchema.optional(),
    view: z.enum(["bars", "treemap"]).default("bars"),
  })
  .refine((w) => w.step_from === undefined || w.step_to === undefined || w.step_from <= w.step_to, {
    message: "must not be after step_to",
    path: ["step_from"],
  });
export type ClusterPageParams = z.infer<typeof clusterPageSchema>;

/** The token API and the console export route: a window, and for an export the cluster to export. */
export const clusterApiSchema = z
  .object({
    step_from: int.optional(),
    step_to: int.optional(),
    threshold: z.coerce.number().gt(0, "must be above 0").max(1, "must be at most 1").default(DEFAULT_THRESHOLD),
    export: keySchema.optional(),
    phrasings: z.enum(["0", "1"]).default("1"),
  })
  .strict()
  .refine((w) => w.step_from === undefined || w.step_to === undefined || w.step_from <= w.step_to, {
    message: "must not be after step_to",
    path: ["step_from"],
  });

export const CLUSTER_STATUSES = ["open", "data_requested", "fixed", "wont_fix"] as const;
export type ClusterStatus = (typeof CLUSTER_STATUSES)[number];
export const STATUS_LABELS: Record<ClusterStatus, string> = {
  open: "open",
  data_requested: "data requested",
  fixed: "fixed",
  wont_fix: "won't fix",
};

/** A lead's triage of one cluster (the form sends pinned as "on" when checked, nothing when not). */
export const clusterStateInput = z.object({
  run: z.string().trim().min(1).max(200),
  key: keySchema,
  status: z.enum(CLUSTER_STATUSES, { message: "must be open, data requested, fixed or won't fix" }),
  pinned: z.preprocess((v) => v === true || v === "on" || v === "true" || v === "1", z.boolean()),
  note: z.string().trim().max(4000, "must be at most 4,000 characters").default(""),
});
export type ClusterStateInput = z.infer<typeof clusterStateInput>;

export type FormState = { ok?: boolean; message?: string; fieldErrors?: Record<string, string[] | undefined> };

/** Tool names as the registries spell them: `finance.issue_refund`. */
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Splits "a=1, note=\"x, y\"" on the commas outside double quotes. */
function splitFields(text: string): string[] {
  const parts: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"' && text[i - 1] !== "\\") quoted = !quoted;
    if (ch === "," && !quoted) {
      parts.push(cur);
      cur = "";
    } else cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

/**
 * The arguments of a required write as a lead types them: `order_id=$order.id, amount=$order.paid_amount,
 * reason="damaged, late"`. A value is JSON when it reads as JSON (a number, true, a quoted string), otherwise the text
 * itself, so `$order.id` stays a pointer into the case's env_snapshot (resolved per case: verifier.md "Pointer").
 */
export function parseWriteFields(
  text: string,
): { ok: true; args: Record<string, unknown> | undefined } | { ok: false; message: string } {
  const args: Record<string, unknown> = {};
  for (const [i, part] of splitFields(text).entries()) {
    const eq = part.indexOf("=");
    const name = (eq < 0 ? part : part.slice(0, eq)).trim();
    if (!FIELD_NAME.test(name))
      return {
        ok: false,
        message: `field ${i + 1} (${JSON.stringify(part)}): ${JSON.stringify(name)} is not a field name (letters, digits and _)`,
      };
    if (eq < 0)
      return {
        ok: false,
        message: `field ${i + 1} (${name}): give its value as ${name}=VALUE (a value, or a pointer such as $order.id)`,
      };
    if (name in args) return { ok: false, message: `field ${i + 1} (${name}): given twice` };
    const raw = part.slice(eq + 1).trim();
    if (raw === "") return { ok: false, message: `field ${i + 1} (${name}): the value is empty` };
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      if (raw.startsWith('"'))
        return { ok: false, message: `field ${i + 1} (${name}): ${raw} is not a closed JSON string` };
    }
    if (value !== null && typeof value === "object")
      return { ok: false, message: `field ${i + 1} (${name}): a value is a number, a string, true, false or null` };
    args[name] = value;
  }
  return { ok: true, args: Object.keys(args).length ? args : undefined };
}

const ticketList = z.preprocess(
  (v) => (typeof v === "string" ? v.split(",") : v),
  z
    .array(z.string().trim().min(1, "a ticket id is empty").max(200, "a ticket id is longer than 200 characters"))
    .min(1, "select at least one ticket")
    .max(100_000, "at most 100,000 tickets"),
);

/**
 * The bulk fix of a cluster (the page's dry-run route and Apply action, and `verity clusters fix`): the window and
 * the cluster whose tickets are fixed, the tickets (a subset; absent: all of the cluster's), and one spec change —
 * `handoff` (set the mode) or `require_write` (a tool and its arguments as `parseWriteFields` reads them). Strict:
 * a misspelled key (`ticket` for `tickets`) is refused by name, never read as "all of the cluster's tickets".
 */
export const bulkFixInput = z
  .strictObject({
    run: z.string().trim().min(1, "is required").max(200),
    step_from: int.optional(),
    step_to: int.optional(),
    threshold: z.coerce.number().gt(0, "must be above 0").max(1, "must be at most 1").default(DEFAULT_THRESHOLD),
    cluster: keySchema,
    tickets: ticketList.optional(),
    change: z.enum(["handoff", "require_write"], { message: 'must be "handoff" or "require_write"' }),
    handoff: z.enum(HANDOFF_MODES, { message: `must be one of ${HANDOFF_MODES.join(", ")}` }).default("not_allowed"),
    tool: z.string().trim().max(200, "must be at most 200 characters").optional(),
    fields: z.string().max(4000, "must be at most 4,000 characters").default(""),
  })
  .superRefine((v, ctx) => {
    if (v.step_from !== undefined && v.step_to !== undefined && v.step_from > v.step_to)
      ctx.addIssue({ code: "custom", path: ["step_from"], message: "must not be after step_to" });
    if (v.change !== "require_write") return;
    if (!v.tool) ctx.addIssue({ code: "custom", path: ["tool"], message: "name the tool of the required write" });
    else if (!TOOL_NAME.test(v.tool))
      ctx.addIssue({
        code: "custom",
        path: ["tool"],
        message: `${JSON.stringify(v.tool)} is not a tool name (such as finance.issue_refund)`,
      });
    const f = parseWriteFields(v.fields);
    if (!f.ok) ctx.addIssue({ code: "custom", path: ["fields"], message: f.message });
  });
export type BulkFixInput = z.infer<typeof bulkFixInput>;

/** The spec change of a parsed bulk-fix input (lib/clusters/spec-change.ts). */
export function specChangeOf(i: BulkFixInput): SpecChange {
  if (i.change === "handoff") return { handoff: i.handoff };
  const f = parseWriteFields(i.fields);
  const args = f.ok ? f.args : undefined;
  return { addRequiredWrite: args ? { tool: i.tool!, args } : { tool: i.tool! } };
}

/** The bulk-fix form's fields as bulkFixInput reads them (the dry-run route gets them as JSON, Apply as the form). */
export function bulkFixFormRecord(form: FormData): Record<string, unknown> {
  const get = (k: string) => {
    const v = form.get(k);
    return typeof v === "string" && v !== "" ? v : undefined;
  };
  return {
    run: get("run") ?? "",
    step_from: get("step_from"),
    step_to: get("step_to"),
    threshold: get("threshold"),
    cluster: get("cluster") ?? "",
    // "all": no list, the cluster's tickets when it runs; "some": the checked boxes, possibly none (refused by name)
    tickets: get("scope") === "some" ? form.getAll("tickets").filter((t) => typeof t === "string") : undefined,
    change: get("change") ?? "",
    handoff: get("handoff"),
    tool: get("tool"),
    fields: get("fields") ?? "",
  };
}
