// One line of a rollout dump (verl, TRL, or any JSONL under `--map`) as the wire objects Verity stores: a rollout,
// an external score record with the dump's reward, and the minimal case created when the prompt's ticket has none.
// Pure apart from the sample-index counters, which follow the lines in file order.
import { canonicalJsonFast } from "@/lib/ledger/store/canonical.ts";
import type { PlatformMapped } from "@/lib/ingest/platform.ts";
import type { LineMapper } from "@/lib/ingest/platform.ts";
import { defaultGroupId, sha256 } from "@/lib/ledger/store/rows.ts";
import { completionTrajectory, isMessageList, promptText } from "@/lib/import/chat.ts";
import { resolveJsonPath } from "@/lib/import/json-path.ts";
import { SUBSCORE_FIELDS, type ImportMap, type MapField } from "@/lib/import/jsonl-map.ts";
import { MAX_ID_LENGTH } from "@/lib/verifier/limits.ts";
import type { Issue } from "@/lib/verifier/schema.ts";
import type { Result } from "@/lib/result.ts";

export type JsonlDefaults = { run?: string; category: string };

/**
 * Sample indices are counted per (step, group) in line order; the counters of this many steps are kept (a dump is
 * written step by step, so this bounds memory whatever the file's size). A line whose step was dropped from them is
 * rejected rather than numbered again from 0 (which would give two rollouts one id).
 */
export const TRACKED_STEPS = 64;

/** A line's field or mapping refused: the issue names the field. */
type LineFailure = { issue: Issue };
type Mapped = Result<{ mapped: PlatformMapped }, LineFailure>;

/** One mapped field or the line's failure. */
type Step<T> = Result<{ value: T }, LineFailure>;
type Getter = (field: MapField) => Step<unknown> | null;
type Failer = (field: MapField, expected: string, got: unknown, at?: string) => { ok: false; issue: Issue };
type Prompt = string | Record<string, unknown>[];
type Identity = {
  trajectory_id: string;
  run_id: string;
  step: number;
  ticket_id: string;
  group_id: string;
  sample_index: number;
};
type Scores = {
  reward: number;
  trained: number;
  subscores: Record<string, number>;
  reasons: Record<string, unknown>[];
};

/** The wire objects of one line: its minimal case, its rollout (tools from the completion) and its score record. */
function wireObjects(
  ticket: Record<string, unknown>,
  identity: Identity,
  completion: string | Record<string, unknown>[],
  { reward, trained, subscores, reasons }: Scores,
): PlatformMapped {
  const { steps, finalReply, tools } = completionTrajectory(completion);
  return {
    case: { kind: "case", ticket, env_snapshot: {}, verifier_spec: {} },
    rollout: {
      kind: "rollout",
      ...identity,
      trajectory: { steps, final_reply: finalReply },
      sandbox: { writes: [], tables: {} },
      // A dump has no registry: every tool called is listed with kind "other", so no write or hand-off is
      // inferred from a name (as for reward-platform payloads).
      tool_registry: [...tools].sort().map((name) => ({ name, kind: "other" })),
      claims: null,
      // What the trainer optimized, on its own scale (before --reward-range).
      trained_reward: trained,
    },
    score: {
      kind: "score",
      source: "external",
      ...identity,
      reward,
      trained_reward: trained,
      ...(Object.keys(subscores).length ? { subscores } : {}),
      ...(reasons.length ? { reasons } : {}),
    },
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
function describe(v: unknown): string {
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v;
}

/** The ticket of a prompt: P- and 12 hex digits of its SHA-256 (a chat prompt as canonical JSON), as the
 * reward-platform import and the Python client derive it, so the K rollouts of a prompt share one. */
export function promptTicketId(prompt: string | Record<string, unknown>[]): string {
  return `P-${sha256(typeof prompt === "string" ? prompt : canonicalJsonFast(prompt)).slice(0, 12)}`;
}

export class JsonlMapper implements LineMapper {
  /** step → group → lines seen so far. */
  private readonly counters = new Map<number, Map<string, number>>();
  private readonly dropped = new Set<number>();

  constructor(
    private readonly m: ImportMap,
    private readonly defaults: JsonlDefaults,
  ) {}

  map(value: unknown): Mapped {
    if (!isObject(value))
      return { ok: false, issue: { path: "", message: `expected a JSON object (got ${describe(value)})` } };
    const p = this.m.paths;
    const get: Getter = (field) => {
      const path = p[field];
      if (!path) return null;
      const r = resolveJsonPath(value, path);
      if (r.found) return { ok: true, value: r.value };
      const why = r.why === "absent" ? `${r.missing} is absent` : `${r.missing}: ${r.why}`;
      return { ok: false, issue: { path: path.text, message: `${field}: ${why}` } };
    };
    const fail: Failer = (field, expected, got, at) => ({
      ok: false,
      issue: { path: at ?? p[field]?.text ?? field, message: `${field}: expected ${expected} (got ${describe(got)})` },
    });

    const idR = this.identify(get, fail);
    if (!idR.ok) return idR;
    const { prompt, identity } = idR.value;
    const completionR = get("completion")!;
    if (!completionR.ok) return completionR;
    const completion = completionR.value;
    if (typeof completion !== "string" && !isMessageList(completion))
      return fail("completion", "text or a list of chat messages", completion);

    let category = this.defaults.category;
    const categoryR = get("category");
    if (categoryR) {
      if (!categoryR.ok) return categoryR;
      if (typeof categoryR.value !== "string") return fail("category", "a category name", categoryR.value);
      category = categoryR.value;
    }
    // Optional on every line (verl's gts is missing from older dumps): absent, the ticket keeps no reference.
    const referenceR = get("reference");

    const scores = this.scores(value, get, fail);
    if (!scores.ok) return scores;

    const ticket: Record<string, unknown> = { id: identity.ticket_id, category, message: promptText(prompt) };
    if (typeof prompt !== "string") ticket.messages = prompt;
    if (referenceR?.ok && referenceR.value !== null && referenceR.value !== undefined)
      ticket.reference_output = referenceR.value;
    return { ok: true, mapped: wireObjects(ticket, identity, completion, scores.value) };
  }

  /**
   * Who the line is: its prompt, run, step, ticket, group, sample index and trajectory id, each mapped or derived
   * (the ticket from the prompt, the group from the ticket, the index from the lines before it, the id from them).
   */
  private identify(get: Getter, fail: Failer): Step<{ prompt: Prompt; identity: Identity }> {
    const p = this.m.paths;
    const promptR = get("prompt")!;
    if (!promptR.ok) return promptR;
    const prompt = promptR.value;
    if (typeof prompt !== "string" && !isMessageList(prompt))
      return fail("prompt", "text or a list of chat messages", prompt);
    const stepR = get("step")!;
    if (!stepR.ok) return stepR;
    const step = toCount(stepR.value);
    if (step === null) return fail("step", "an integer >= 0 or a string of digits", stepR.value);

    let runId = this.defaults.run;
    const runR = get("run");
    if (runR) {
      if (!runR.ok) return runR;
      if (typeof runR.value !== "string" || !runR.value) return fail("run", "a run id", runR.value);
      runId = runR.value;
    }
    if (!runId) return { ok: false, issue: { path: "run", message: "run: no run: give --run or map run=" } };
    const ticketR = get("ticket");
    let ticketId = promptTicketId(prompt);
    if (ticketR) {
      if (!ticketR.ok) return ticketR;
      if (typeof ticketR.value !== "string" && typeof ticketR.value !== "number")
        return fail("ticket", "a ticket id", ticketR.value);
      ticketId = String(ticketR.value);
    }
    const groupR = get("group");
    let group = ticketId;
    if (groupR) {
      if (!groupR.ok) return groupR;
      if (typeof groupR.value !== "string" && typeof groupR.value !== "number")
        return fail("group", "text or a number", groupR.value);
      group = String(groupR.value);
    }
    const groupId = defaultGroupId(runId, step, group);
    // Checked here, where the message can name what the id is derived from (the wire schema would blame the id).
    if (groupId.length > MAX_ID_LENGTH)
      return {
        ok: false,
        issue: {
          path: p.group?.text ?? p.ticket?.text ?? p.prompt!.text,
          message: `${p.group ? "group" : "ticket"}: the group id derived from it (RUN/sSTEP/GROUP) would have ${groupId.length} characters (at most ${MAX_ID_LENGTH})`,
        },
      };

    const indexR = this.sampleIndex(get, fail, step, groupId);
    if (!indexR.ok) return indexR;
    const sampleIndex = indexR.value;
    let trajectoryId = `${groupId}/k${sampleIndex}`;
    const trajectoryR = get("trajectory_id");
    if (trajectoryR) {
      if (!trajectoryR.ok) return trajectoryR;
      if (typeof trajectoryR.value !== "string" && typeof trajectoryR.value !== "number")
        return fail("trajectory_id", "an id", trajectoryR.value);
      trajectoryId = String(trajectoryR.value);
    }
    const identity = {
      trajectory_id: trajectoryId,
      run_id: runId,
      step,
      ticket_id: ticketId,
      group_id: groupId,
      sample_index: sampleIndex,
    };
    return { ok: true, value: { prompt, identity } };
  }

  /**
   * The line's sample index, mapped or counted. Counted as soon as the group is known, before anything else on the
   * line can fail: importing the file again after fixing a bad line gives every other line the index it had.
   */
  private sampleIndex(get: Getter, fail: Failer, step: number, groupId: string): Step<number> {
    const indexR = get("sample_index");
    if (indexR) {
      if (!indexR.ok) return indexR;
      const k = toCount(indexR.value);
      if (k === null) return fail("sample_index", "an integer >= 0", indexR.value);
      return { ok: true, value: k };
    }
    const k = this.nextIndex(step, groupId);
    if (k === null)
      return {
        ok: false,
        issue: {
          path: this.m.paths.step!.text,
          message: `step: step ${step} comes back after lines of ${TRACKED_STEPS} later steps; sample indices are counted in line order within a step, so give the file in step order or map sample_index=`,
        },
      };
    return { ok: true, value: k };
  }

  /** The reward (and what the trainer saw before rescaling), the mapped sub-scores and the other components. */
  private scores(value: Record<string, unknown>, get: Getter, fail: Failer): Step<Scores> {
    const p = this.m.paths;
    // Top-level keys that a non-sub-score field reads are never components.
    const taken = new Set<string>();
    for (const [field, path] of Object.entries(p)) {
      const first = path.segments[0];
      if (!(SUBSCORE_FIELDS as readonly string[]).includes(field) && "key" in first) taken.add(first.key);
    }
    const components: [string, number | null][] = [];
    if (this.m.components) {
      for (const [key, v] of Object.entries(value)) {
        if (taken.has(key) || this.m.components.except.includes(key)) continue;
        if (typeof v === "number") components.push([key, v]);
        else if (typeof v === "boolean") components.push([key, v ? 1 : 0]);
        else if (v === null) components.push([key, null]);
      }
    }

    let trained: number;
    let rewardAt: string;
    if (p.reward) {
      const r = get("reward")!;
      if (!r.ok) return r;
      if (typeof r.value !== "number") return fail("reward", "a number", r.value);
      trained = r.value;
      rewardAt = p.reward.text;
    } else {
      const present = components.filter(([, v]) => v !== null) as [string, number][];
      rewardAt = components.map(([k]) => k).join("+") || "reward";
      if (present.length === 0)
        return {
          ok: false,
          issue: {
            path: rewardAt,
            message: components.length
              ? `reward: no reward column has a value on this line (${components.map(([k]) => k).join(", ")} are null)`
              : "reward: the line has no reward column (a number beside step, prompt, completion and advantage)",
          },
        };
      trained = present.reduce((sum, [k, v]) => sum + (this.m.weights[k] ?? 1) * v, 0);
    }
    let reward = trained;
    if (this.m.rewardRange) {
      const [lo, hi] = this.m.rewardRange;
      if (trained < lo || trained > hi)
        return {
          ok: false,
          issue: { path: rewardAt, message: `reward: ${trained} is outside --reward-range ${lo},${hi}` },
        };
      reward = Math.round(((trained - lo) / (hi - lo)) * 1e9) / 1e9;
    } else if (!(trained >= 0 && trained <= 1)) {
      return {
        ok: false,
        issue: {
          path: rewardAt,
          message: `reward: ${trained} is outside [0, 1], the ledger's scale: give --reward-range LO,HI to map the trainer's range onto it`,
        },
      };
    }

    const subscores: Record<string, number> = {};
    const asSubscore = new Set<string>();
    for (const d of SUBSCORE_FIELDS) {
      const path = p[d];
      if (!path) continue;
      const r = get(d)!;
      if (!r.ok) return r;
      if (r.value === null) continue; // TRL's NaN: the function had nothing to say about this completion
      const v = typeof r.value === "boolean" ? (r.value ? 1 : 0) : r.value;
      if (typeof v !== "number" || v < 0 || v > 1) return fail(d, "a number in [0, 1] or a boolean", r.value);
      subscores[d] = v;
      if (path.segments.length === 1 && "key" in path.segments[0]) asSubscore.add(path.segments[0].key);
    }
    const reasons = components
      .filter(([k, v]) => v !== null && !asSubscore.has(k))
      .map(([k, v]) => ({ code: "reward_component", field: k, actual: v, message: `${k} = ${v}` }));
    return { ok: true, value: { reward, trained, subscores, reasons } };
  }

  locate(part: "case" | "rollout" | "score", issue: Issue): Issue {
    const p = this.m.paths;
    const head = issue.path.split(".")[0];
    const at = (field: MapField, fallback: string) => ({
      path: p[field]?.text ?? fallback,
      message: `${field}: ${issue.message}`,
    });
    if (part === "case") {
      if (issue.path.startsWith("ticket.category")) return at("category", "--category");
      if (issue.path.startsWith("ticket.id")) return at("ticket", p.prompt!.text);
      return at("prompt", "prompt");
    }
    if (head === "trajectory") return at("completion", "completion");
    if (head === "trajectory_id") return at("trajectory_id", "trajectory_id (derived RUN/sSTEP/GROUP/kINDEX)");
    if (head === "run_id") return at("run", "--run");
    if (head === "step") return at("step", "step");
    if (head === "ticket_id") return at("ticket", p.prompt!.text);
    if (head === "group_id") return at("group", "group_id (derived RUN/sSTEP/GROUP)");
    if (head === "sample_index") return at("sample_index", "sample_index");
    if (head === "reward" || head === "trained_reward") return at("reward", "reward");
    if (head === "subscores") {
      const d = issue.path.split(".")[1] as MapField;
      if (d && p[d]) return at(d, d);
    }
    if (head === "reasons") return { path: "(reward components)", message: `reward components: ${issue.message}` };
    return issue;
  }

  private nextIndex(step: number, groupId: string): number | null {
    let groups = this.counters.get(step);
    if (!groups) {
      if (this.dropped.has(step)) return null;
      if (this.counters.size >= TRACKED_STEPS) {
        const oldest = this.counters.keys().next().value as number;
        this.counters.delete(oldest);
        this.dropped.add(oldest);
      }
      groups = new Map();
      this.counters.set(step, groups);
    }
    const k = groups.get(groupId) ?? 0;
    groups.set(groupId, k + 1);
    return k;
  }
}

/** An integer >= 0, or a string of at most 15 digits (TRL writes the step as text). */
function toCount(v: unknown): number | null {
  if (typeof v === "number") return Number.isSafeInteger(v) && v >= 0 ? v : null;
  if (typeof v === "string" && /^\d{1,15}$/.test(v)) return Number(v);
  return null;
}
