import { z } from "zod";
import { isClusterKey } from "@/lib/clusters/keys.ts";

// The one parser of every outside input of the clusters domain: the page's URL, the token API's query, the CLI's
// flags (mapped onto the same names) and the lead's triage form.

/** Entries with a reward strictly below this are "low-scoring" (the population that is clustered). */
export const DEFAULT_THRESHOLD = 0.5;

const int = z.coerce.number().int("must be a whole number").min(0, "must be 0 or more");

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

/** "field: message" lines of a zod error, for the API, the CLI and the export route. */
export function issues(error: z.ZodError): string[] {
  return error.issues.map((i) =>
    i.code === "unrecognized_keys"
      ? `unknown parameter ${i.keys.map((k) => `"${k}"`).join(", ")}`
      : `${i.path.join(".")}: ${i.message}`,
  );
}
