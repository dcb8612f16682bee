// What `verity import jsonl` reads from each line: the map from Verity's fields to paths in the line
// (`--map field=path,...`), and the presets for the dumps trainers write (`--preset verl|trl`). Pure.
//
// verl — `RayPPOTrainer._dump_generations` (verl/trainer/ppo/ray_trainer.py), written when
// `trainer.rollout_data_dir` is set: one file `<step>.jsonl` per training step, one line per rollout:
//   {"input": decoded prompt, "output": decoded response, "gts": ground truth (newer versions), "score": the
//    sequence's reward (token_level_scores summed), "step": global step, ...reward_extra_info: one key per extra
//    value the reward function returned (`acc`, `pred`, ...)}
// TRL — `GRPOTrainer.log` (trl/trainer/grpo_trainer.py) with `log_completions=True` logs the table "completions"
// (to W&B / trackio; exported as JSONL, e.g. `pandas.DataFrame.to_json(orient="records", lines=True)`):
//   {"step": str(global step), "prompt": text or chat messages, "completion": text or chat messages,
//    <one column per reward function, named after it; NaN (null in JSON) where it did not apply>, "advantage": ...}
// The table has no total: TRL's reward is the weighted sum of the reward functions (weights 1 unless
// `reward_weights` says otherwise, NaN counted as 0), so the preset computes it from the columns (`--weights`).
import { DIMENSIONS } from "@/lib/verifier/codes.ts";
import { parseJsonPath, type JsonPath } from "@/lib/import/json-path.ts";

/** The fields a map may name, and what each is. */
export const MAP_FIELDS = {
  prompt: "the prompt: text, or a list of chat messages (required)",
  completion: "the completion: text, or a list of chat messages (required)",
  reward: "the trainer's reward, a number (required unless the preset sums reward components)",
  step: "the training step: an integer >= 0 or a string of digits (required)",
  group: "the GRPO group within the step (text or number); default: the prompt's ticket",
  sample_index: "the rollout's index in its group; default: its place among the group's lines, in file order",
  ticket: "the ticket id; default: P- and 12 hex digits of the prompt's SHA-256",
  trajectory_id: "the rollout's id; default RUN/sSTEP/GROUP/kINDEX",
  run: "the run id; default --run",
  category: "the ticket's category; default --category (imported)",
  reference: "kept on the minimal case's ticket as reference_output (verl's gts)",
  outcome: "sub-score (a number in [0, 1], or a boolean)",
  policy: "sub-score",
  evidence: "sub-score",
  efficiency: "sub-score",
  communication: "sub-score",
} as const;
export type MapField = keyof typeof MAP_FIELDS;
const FIELD_NAMES = Object.keys(MAP_FIELDS) as MapField[];
export const SUBSCORE_FIELDS = DIMENSIONS;

export type ImportMap = {
  paths: Partial<Record<MapField, JsonPath>>;
  /** Every other top-level key with a number, boolean or null is a reward component (verl's reward_extra_info,
   * TRL's reward columns), except these. Components a sub-score is mapped to become that sub-score; the others are
   * kept as reasons `{code: "reward_component", field, actual}`. */
  components?: { except: string[] };
  /** The reward is Σ weight·component over the components present (TRL: its table holds no total). */
  rewardFromComponents?: boolean;
  /** Component weights for rewardFromComponents (default 1). */
  weights: Record<string, number>;
  /** The trainer's reward scale, mapped linearly onto the ledger's [0, 1]. */
  rewardRange?: [number, number];
};

export const PRESETS = {
  verl: {
    map: { prompt: "input", completion: "output", reward: "score", step: "step", reference: "gts" },
    components: { except: ["input", "output", "gts", "score", "step", "request_id", "uid", "data_source"] },
    rewardFromComponents: false,
  },
  trl: {
    map: { prompt: "prompt", completion: "completion", step: "step" },
    components: { except: ["step", "prompt", "completion", "advantage", "image", "images"] },
    rewardFromComponents: true,
  },
} as const satisfies Record<
  string,
  { map: Partial<Record<MapField, string>>; components: { except: string[] }; rewardFromComponents: boolean }
>;
export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** `field=path,field=path`: the fields named, each once, with valid paths. */
export function parseMapSpec(spec: string): Parsed<Partial<Record<MapField, JsonPath>>> {
  const out: Partial<Record<MapField, JsonPath>> = {};
  for (const item of spec.split(",")) {
    const pair = item.trim();
    if (!pair) continue;
    const eq = pair.indexOf("=");
    if (eq < 0) return { ok: false, message: `"${pair}" is not field=path` };
    const field = pair.slice(0, eq).trim();
    if (!(FIELD_NAMES as string[]).includes(field))
      return { ok: false, message: `unknown field "${field}" (fields: ${FIELD_NAMES.join(", ")})` };
    if (out[field as MapField]) return { ok: false, message: `field "${field}" is mapped twice` };
    const path = parseJsonPath(pair.slice(eq + 1).trim());
    if (!path.ok) return { ok: false, message: `${field}: ${path.message}` };
    out[field as MapField] = path.path;
  }
  return { ok: true, value: out };
}

/** `name=w,name=w`: finite weights. */
export function parseWeights(spec: string): Parsed<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const item of spec.split(",")) {
    const pair = item.trim();
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const w = eq < 0 ? NaN : Number(pair.slice(eq + 1));
    if (eq <= 0 || !Number.isFinite(w) || pair.slice(eq + 1).trim() === "")
      return { ok: false, message: `"${pair}" is not name=number` };
    out[pair.slice(0, eq).trim()] = w;
  }
  return { ok: true, value: out };
}

/** `LO,HI` with LO < HI. */
export function parseRewardRange(spec: string): Parsed<[number, number]> {
  const parts = spec.split(",").map((s) => s.trim());
  const [lo, hi] = parts.map(Number);
  if (parts.length !== 2 || parts.some((p) => p === "") || !Number.isFinite(lo) || !Number.isFinite(hi) || lo >= hi)
    return { ok: false, message: `"${spec}" is not LO,HI with LO < HI` };
  return { ok: true, value: [lo, hi] };
}

/** A preset and/or a map (the map's fields override the preset's), checked for the fields every line needs. */
export function buildImportMap(opts: {
  preset?: PresetName;
  map?: string;
  weights?: string;
  rewardRange?: string;
}): Parsed<ImportMap> {
  const preset = opts.preset ? PRESETS[opts.preset] : null;
  const paths: Partial<Record<MapField, JsonPath>> = {};
  if (preset) {
    for (const [field, text] of Object.entries(preset.map)) {
      const p = parseJsonPath(text);
      if (p.ok) paths[field as MapField] = p.path;
    }
  }
  if (opts.map !== undefined) {
    const m = parseMapSpec(opts.map);
    if (!m.ok) return { ok: false, message: `--map: ${m.message}` };
    Object.assign(paths, m.value);
  }
  if (!preset && opts.map === undefined)
    return { ok: false, message: "give --preset verl|trl or --map field=path,..." };
  const rewardFromComponents = !!preset?.rewardFromComponents && !paths.reward;
  const missing = (["prompt", "completion", "step", "reward"] as const).filter(
    (f) => !paths[f] && !(f === "reward" && rewardFromComponents),
  );
  if (missing.length)
    return {
      ok: false,
      message: `--map: give ${missing.join(", ")} (every line needs prompt, completion, step, reward)`,
    };
  let weights: Record<string, number> = {};
  if (opts.weights !== undefined) {
    if (!rewardFromComponents)
      return {
        ok: false,
        message: "--weights: only for a reward summed from components (--preset trl without reward=)",
      };
    const w = parseWeights(opts.weights);
    if (!w.ok) return { ok: false, message: `--weights: ${w.message}` };
    weights = w.value;
  }
  let rewardRange: [number, number] | undefined;
  if (opts.rewardRange !== undefined) {
    const r = parseRewardRange(opts.rewardRange);
    if (!r.ok) return { ok: false, message: `--reward-range: ${r.message}` };
    rewardRange = r.value;
  }
  return {
    ok: true,
    value: {
      paths,
      components: preset ? { except: [...preset.components.except] } : undefined,
      rewardFromComponents,
      weights,
      rewardRange,
    },
  };
}
