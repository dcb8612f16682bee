// Cluster signatures: the stable string a cluster is known by (in URLs, exports, and the cluster_states table),
// and the trajectory-browser link that shows its members. Pure.
//
//   level 1   "<l1>"                    l1 = deciding guardrail, or "weakest:<sub-score>" when none fired
//   level 2   "<l1>|<signature>"        signature = reason code, "@tool", "#field" (tool and field when present)
//   level 3   "<l1>|<signature>|<category>"
//   blind spot "blind_spot:handoff_no_write"
//   co-fired  "cofired:<code>+<code>[+…]" guardrail codes in verifier.md table order
//
// Tools, fields and categories are free text: "%", "|", "@" and "#" inside them are percent-encoded.
import {
  browseQuery,
  formatReasonSignature,
  parseReasonSignature,
  type BrowseParams,
  type ReasonSignature,
} from "@/lib/ledger/browse-schema.ts";
import { DIMENSIONS, GUARDRAIL_CODES, type Dimension, type GuardrailCode } from "@/lib/verifier/codes.ts";

export const BLIND_SPOT_KEY = "blind_spot:handoff_no_write";
export const WEAKEST_UNKNOWN = "weakest:unknown";

export type Signature = ReasonSignature;

export type ClusterKey =
  | { kind: "level1"; l1: string }
  | { kind: "level2"; l1: string; sig: Signature }
  | { kind: "level3"; l1: string; sig: Signature; category: string }
  | { kind: "blind_spot" }
  | { kind: "cofired"; codes: GuardrailCode[] };

const GUARDRAILS = new Set<string>(GUARDRAIL_CODES);
const LEVEL_ONE = new Set<string>([...GUARDRAIL_CODES, ...DIMENSIONS.map((d) => `weakest:${d}`), WEAKEST_UNKNOWN]);

/** The level-1 key of an entry: its deciding guardrail, else its lowest sub-score (ties: table order). */
export function levelOneKey(deciding: string | null, subscores: Partial<Record<Dimension, number | null>>): string {
  if (deciding) return deciding;
  let best: Dimension | null = null;
  for (const d of DIMENSIONS) {
    const v = subscores[d];
    if (typeof v === "number" && (best === null || v < (subscores[best] as number))) best = d;
  }
  return best ? `weakest:${best}` : WEAKEST_UNKNOWN;
}

const enc = (s: string) =>
  s.replace(/[%|@#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
const dec = (s: string) => s.replace(/%(25|7C|40|23)/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

/** A signature as keys and the browser's `sig` filter spell it (one spelling, so a key's part is the filter). */
export function signatureKey(sig: Signature): string {
  return formatReasonSignature(sig);
}

const parseSignature = parseReasonSignature;

export function formatKey(k: ClusterKey): string {
  switch (k.kind) {
    case "level1":
      return k.l1;
    case "level2":
      return `${k.l1}|${signatureKey(k.sig)}`;
    case "level3":
      return `${k.l1}|${signatureKey(k.sig)}|${enc(k.category)}`;
    case "blind_spot":
      return BLIND_SPOT_KEY;
    case "cofired":
      return cofiredKey(k.codes);
  }
}

/** The co-fired key of a set of guardrail codes (any order in, table order out). */
export function cofiredKey(codes: readonly string[]): string {
  return `cofired:${GUARDRAIL_CODES.filter((c) => codes.includes(c)).join("+")}`;
}

export function parseKey(key: string): ClusterKey | null {
  if (key === BLIND_SPOT_KEY) return { kind: "blind_spot" };
  if (key.startsWith("cofired:")) {
    const codes = key.slice(8).split("+");
    if (codes.length < 2 || !codes.every((c) => GUARDRAILS.has(c)) || cofiredKey(codes) !== key) return null;
    return { kind: "cofired", codes: codes as GuardrailCode[] };
  }
  const parts = key.split("|");
  if (parts.length > 3 || !LEVEL_ONE.has(parts[0])) return null;
  if (parts.length === 1) return { kind: "level1", l1: parts[0] };
  const sig = parseSignature(parts[1]);
  if (!sig) return null;
  if (parts.length === 2) return { kind: "level2", l1: parts[0], sig };
  if (parts[2] === "" || /[@#]/.test(parts[2])) return null;
  return { kind: "level3", l1: parts[0], sig, category: dec(parts[2]) };
}

export function isClusterKey(key: string): boolean {
  return parseKey(key) !== null;
}

/** The level-1 key above a key (itself for level 1); null for the blind spot and co-fired sets. */
export function parentLevelOne(k: ClusterKey): string | null {
  return k.kind === "level1" || k.kind === "level2" || k.kind === "level3" ? k.l1 : null;
}

export function levelOneLabel(l1: string): string {
  return l1.startsWith("weakest:") ? `no guardrail · weakest ${l1.slice(8)}` : l1;
}

export function signatureLabel(sig: Signature): string {
  return [sig.code, sig.tool, sig.field].filter((x) => x !== null && x !== "").join(" · ");
}

export function clusterLabel(k: ClusterKey): string {
  switch (k.kind) {
    case "level1":
      return levelOneLabel(k.l1);
    case "level2":
      return `${levelOneLabel(k.l1)} › ${signatureLabel(k.sig)}`;
    case "level3":
      return `${levelOneLabel(k.l1)} › ${signatureLabel(k.sig)} › ${k.category}`;
    case "blind_spot":
      return "hand-off without a write, no guardrail (blind spot)";
    case "cofired":
      return k.codes.join(" + ");
  }
}

export type LinkWindow = { runId: string; from?: number; to?: number; threshold: number };

/**
 * Trajectory-browser filters that show exactly a cluster's members (sql.ts memberWhere) in the link's window:
 *   population  run, steps, reward_below = threshold (strictly below, as the population is)
 *   level 1     deciding guardrail; or deciding none + weakest sub-score (weakest:unknown: no sub-scores)
 *   level 2     + sig: one reason row with that code, tool and field (absent tool or field: the reason has none)
 *   level 3     + category
 *   co-fired    all of the set and none of the other guardrails (the mask equals the set)
 *   blind spot  hand-off credited on its outcome (> 0), no guardrail, the sandbox recorded no write — whatever the
 *               reward
 */
export function browserFilters(w: LinkWindow, k: ClusterKey): Partial<BrowseParams> {
  const p: Partial<BrowseParams> = { run: w.runId, step_from: w.from, step_to: w.to };
  if (k.kind === "blind_spot") return { ...p, handoff: "credited", none: [...GUARDRAIL_CODES], sandbox_write: "no" };
  p.reward_below = w.threshold;
  if (k.kind === "cofired")
    return { ...p, all: [...k.codes], none: GUARDRAIL_CODES.filter((c) => !k.codes.includes(c)) };
  if (k.l1.startsWith("weakest:")) {
    p.deciding = ["none"];
    p.weakest = [k.l1.slice(8) as NonNullable<BrowseParams["weakest"]>[number]];
  } else p.deciding = [k.l1];
  if (k.kind === "level2" || k.kind === "level3") p.sig = signatureKey(k.sig);
  if (k.kind === "level3") p.category = [k.category];
  return p;
}

export function browserHref(w: LinkWindow, k: ClusterKey): string {
  return `/trajectories?${browseQuery(browserFilters(w, k))}`;
}

function windowQuery(w: LinkWindow, extra: Record<string, string | undefined>): string {
  const q = new URLSearchParams({ run: w.runId });
  if (w.from !== undefined) q.set("step_from", String(w.from));
  if (w.to !== undefined) q.set("step_to", String(w.to));
  if (w.threshold !== 0.5) q.set("threshold", String(w.threshold));
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) q.set(k, v);
  return q.toString();
}

/** The clusters page on a window, optionally drilled into cluster `c`. */
export function clustersHref(w: LinkWindow, extra: { c?: string; view?: string } = {}): string {
  return `/clusters?${windowQuery(w, { c: extra.c, view: extra.view === "treemap" ? "treemap" : undefined })}`;
}

/** The bulk fix of one cluster's cases (leads and admins): /clusters/fix. */
export function bulkFixHref(w: LinkWindow, key: string): string {
  return `/clusters/fix?${windowQuery(w, { c: key })}`;
}

/** The console's backlog download of one cluster: NDJSON, or its members as Parquet. */
export function exportHref(w: LinkWindow, key: string, format: "ndjson" | "parquet" = "ndjson"): string {
  return `/clusters/export?${windowQuery(w, { c: key, format: format === "parquet" ? "parquet" : undefined })}`;
}
