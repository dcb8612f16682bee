import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseLineValue } from "@/lib/ingest/schema.ts";
import { JsonlMapper, TRACKED_STEPS } from "@/lib/import/jsonl-line.ts";
import { buildImportMap, type PresetName } from "@/lib/import/jsonl-map.ts";

const FIXTURES = path.join(import.meta.dirname, "fixtures");
const lines = (file: string) =>
  fs
    .readFileSync(path.join(FIXTURES, file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const ticketOf = (text: string) => `P-${createHash("sha256").update(text).digest("hex").slice(0, 12)}`;

function mapper(opts: { preset?: PresetName; map?: string; weights?: string; rewardRange?: string }, run = "r") {
  const m = buildImportMap(opts);
  if (!m.ok) throw new Error(m.message);
  return new JsonlMapper(m.value, { run, category: "imported" });
}

/** Maps every line, and checks each mapped object against the wire schemas the ingest path validates with. */
function mapAll(mp: JsonlMapper, values: unknown[]) {
  return values.map((v, i) => {
    const r = mp.map(v);
    if (!r.ok) return r;
    for (const part of ["case", "rollout", "score"] as const) {
      const parsed = parseLineValue(r.mapped[part]);
      expect(parsed.ok ? "valid" : parsed.issue, `line ${i + 1} ${part}`).toBe("valid");
    }
    return r;
  });
}

describe("the verl preset on verl's rollout dump", () => {
  const verl = lines("verl/12.jsonl");

  it("makes one rollout and one external score a line, grouped by (step, prompt) in line order", () => {
    const out = mapAll(mapper({ preset: "verl" }), verl);
    const t1 = ticketOf(verl[0].input as string);
    const t2 = ticketOf(verl[3].input as string);
    expect(t1).toBe("P-8918c339a439"); // the Python client's prompt_ticket_id of the same prompt
    expect(out.map((r) => r.ok && r.mapped.rollout.trajectory_id)).toEqual([
      `r/s12/${t1}/k0`,
      `r/s12/${t1}/k1`,
      `r/s12/${t1}/k2`,
      `r/s12/${t2}/k0`,
      `r/s12/${t2}/k1`,
      `r/s12/${t2}/k2`,
    ]);
    const first = out[0];
    expect(first.ok && first.mapped).toEqual({
      case: {
        kind: "case",
        ticket: { id: t1, category: "imported", message: verl[0].input, reference_output: "refund 59.99 EUR" },
        env_snapshot: {},
        verifier_spec: {},
      },
      rollout: {
        kind: "rollout",
        trajectory_id: `r/s12/${t1}/k0`,
        run_id: "r",
        step: 12,
        ticket_id: t1,
        group_id: `r/s12/${t1}`,
        sample_index: 0,
        trajectory: { steps: [], final_reply: verl[0].output },
        sandbox: { writes: [], tables: {} },
        tool_registry: [],
        claims: null,
        trained_reward: 1,
      },
      score: {
        kind: "score",
        source: "external",
        trajectory_id: `r/s12/${t1}/k0`,
        run_id: "r",
        step: 12,
        ticket_id: t1,
        group_id: `r/s12/${t1}`,
        sample_index: 0,
        reward: 1,
        trained_reward: 1,
        // acc is a reward_extra_info value: kept as a component; pred is text, not a component.
        reasons: [{ code: "reward_component", field: "acc", actual: 1, message: "acc = 1" }],
      },
    });
    expect(out.map((r) => r.ok && r.mapped.score.reward)).toEqual([1, 0, 1, 1, 0, 0]);
  });

  it("maps a named component to a sub-score when the map says so", () => {
    const out = mapAll(mapper({ preset: "verl", map: "outcome=acc" }), verl);
    expect(out.map((r) => r.ok && r.mapped.score.subscores)).toEqual([
      { outcome: 1 },
      { outcome: 0 },
      { outcome: 1 },
      { outcome: 1 },
      { outcome: 0 },
      { outcome: 0 },
    ]);
    expect(out.every((r) => r.ok && !("reasons" in r.mapped.score))).toBe(true);
  });

  it("rescales a reward range onto [0, 1], and refuses a reward off the ledger's scale without one", () => {
    const line = { ...verl[0], score: -1 };
    expect(mapper({ preset: "verl" }).map(line)).toEqual({
      ok: false,
      issue: {
        path: "score",
        message:
          "reward: -1 is outside [0, 1], the ledger's scale: give --reward-range LO,HI to map the trainer's range onto it",
      },
    });
    const scaled = mapper({ preset: "verl", rewardRange: "-1,1" });
    const r = scaled.map({ ...verl[0], score: 0.5 });
    // The ledger's reward is rescaled; the trainer's stays what it optimized.
    expect(r.ok && [r.mapped.score.reward, r.mapped.score.trained_reward, r.mapped.rollout.trained_reward]).toEqual([
      0.75, 0.5, 0.5,
    ]);
    expect(scaled.map({ ...verl[0], score: 3 })).toEqual({
      ok: false,
      issue: { path: "score", message: "reward: 3 is outside --reward-range -1,1" },
    });
  });
});

describe("the trl preset on TRL's completions table", () => {
  const trl = lines("trl/completions.jsonl");

  it("sums the reward columns with --weights, reads the step from text and groups chat prompts by (step, prompt)", () => {
    const out = mapAll(mapper({ preset: "trl", weights: "accuracy_reward=0.8,format_reward=0.2" }), trl);
    const t1 = "P-daef72a64e09"; // the Python client's prompt_ticket_id of the first chat prompt
    const first = out[0];
    expect(first.ok && first.mapped.case.ticket).toEqual({
      id: t1,
      category: "imported",
      message: "Where is my parcel? Order O-3 was due on Monday.",
      messages: trl[0].prompt,
    });
    expect(
      out.map((r) => r.ok && [r.mapped.rollout.step, r.mapped.rollout.sample_index, r.mapped.score.reward]),
    ).toEqual([
      [5, 0, 1],
      [5, 1, 0.2],
      [5, 0, 1],
      [5, 1, 0],
      [5, 2, 0.8], // format_reward is null (NaN): TRL's nansum counts it 0
      [10, 0, 1],
      [10, 1, 1],
    ]);
    expect(first.ok && first.mapped.rollout.trajectory).toEqual({
      steps: [],
      final_reply: "Your parcel O-3 is at the local depot and will be delivered tomorrow.",
    });
    expect(first.ok && first.mapped.score.reasons).toEqual([
      { code: "reward_component", field: "accuracy_reward", actual: 1, message: "accuracy_reward = 1" },
      { code: "reward_component", field: "format_reward", actual: 1, message: "format_reward = 1" },
    ]);
    const fifth = out[4];
    expect(fifth.ok && fifth.mapped.score.reasons).toEqual([
      { code: "reward_component", field: "accuracy_reward", actual: 1, message: "accuracy_reward = 1" },
    ]);
  });

  it("without weights sums to TRL's scale, which needs a reward range", () => {
    const r = mapper({ preset: "trl" }).map(trl[0]);
    expect(r).toEqual({
      ok: false,
      issue: {
        path: "accuracy_reward+format_reward",
        message:
          "reward: 2 is outside [0, 1], the ledger's scale: give --reward-range LO,HI to map the trainer's range onto it",
      },
    });
    const scaled = mapper({ preset: "trl", rewardRange: "0,2", map: "outcome=accuracy_reward" }).map(trl[1]);
    expect(scaled.ok && scaled.mapped.score).toMatchObject({
      reward: 0.5,
      trained_reward: 1,
      subscores: { outcome: 0 },
      reasons: [{ field: "format_reward", actual: 1 }],
    });
  });

  it("names the columns when none has a value", () => {
    expect(mapper({ preset: "trl" }).map({ ...trl[0], accuracy_reward: null, format_reward: null })).toEqual({
      ok: false,
      issue: {
        path: "accuracy_reward+format_reward",
        message: "reward: no reward column has a value on this line (accuracy_reward, format_reward are null)",
      },
    });
  });
});

describe("a generic --map", () => {
  const map = "prompt=data.q,completion=data.turns,reward=r.total,step=it,group=gid,category=kind";
  const line = {
    it: 3,
    gid: 17,
    kind: "refund",
    r: { total: 0.5 },
    data: {
      q: "Refund order O-1",
      turns: [
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [{ id: "c1", function: { name: "order.get", arguments: '{"order_id": "O-1"}' } }],
        },
        { role: "tool", tool_call_id: "c1", content: '{"status": "delivered"}' },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Refunded " },
            { type: "text", text: "59.99 EUR." },
          ],
        },
      ],
    },
  };

  it("reads nested paths, a chat completion with tool calls, the group and the category", () => {
    const [r] = mapAll(mapper({ map }), [line]);
    expect(r.ok && r.mapped.rollout).toMatchObject({
      trajectory_id: "r/s3/17/k0",
      group_id: "r/s3/17",
      ticket_id: ticketOf("Refund order O-1"),
      trajectory: {
        steps: [
          { type: "llm", name: "assistant", output: "Checking." },
          {
            type: "tool",
            name: "order.get",
            input: '{"order_id": "O-1"}',
            status: "success",
            output: '{"status": "delivered"}',
          },
        ],
        final_reply: "Refunded 59.99 EUR.",
      },
      tool_registry: [{ name: "order.get", kind: "other" }],
    });
    expect(r.ok && r.mapped.case.ticket).toMatchObject({ category: "refund" });
  });

  it("names the line's path and the field for a missing value or a wrong type", () => {
    const mp = mapper({ map });
    expect(mp.map({ ...line, data: { turns: [] } })).toEqual({
      ok: false,
      issue: { path: "data.q", message: "prompt: data.q is absent" },
    });
    expect(mp.map({ ...line, data: "flat" })).toEqual({
      ok: false,
      issue: { path: "data.q", message: 'prompt: data.q: string has no field "q"' },
    });
    expect(mp.map({ ...line, data: { q: "x", turns: 42 } })).toEqual({
      ok: false,
      issue: { path: "data.turns", message: "completion: expected text or a list of chat messages (got 42)" },
    });
    expect(mp.map({ ...line, it: -2 })).toEqual({
      ok: false,
      issue: { path: "it", message: "step: expected an integer >= 0 or a string of digits (got -2)" },
    });
    expect(mp.map({ ...line, r: { total: "0.5" } })).toEqual({
      ok: false,
      issue: { path: "r.total", message: 'reward: expected a number (got the string "0.5")' },
    });
    expect(mp.map([line])).toEqual({
      ok: false,
      issue: { path: "", message: "expected a JSON object (got an array)" },
    });
    const sub = mapper({ map: `${map},outcome=r.acc` });
    expect(sub.map({ ...line, r: { total: 0.5, acc: "yes" } })).toEqual({
      ok: false,
      issue: { path: "r.acc", message: 'outcome: expected a number in [0, 1] or a boolean (got the string "yes")' },
    });
  });

  it("says where an error the wire schemas find lies in the line", () => {
    const mp = mapper({ map });
    expect(mp.locate("score", { path: "group_id", message: "too long: at most 200 characters (got 240)" })).toEqual({
      path: "gid",
      message: "group: too long: at most 200 characters (got 240)",
    });
    expect(
      mp.locate("rollout", { path: "trajectory.steps.0.input", message: "expected an object or a JSON string" }),
    ).toEqual({
      path: "data.turns",
      message: "completion: expected an object or a JSON string",
    });
    expect(mp.locate("case", { path: "ticket.category", message: "contains a character an id may not have" })).toEqual({
      path: "kind",
      message: "category: contains a character an id may not have",
    });
  });

  it("counts a bad line in its group, so fixing it and importing again keeps every index", () => {
    const mp = mapper({ map });
    const bad = mp.map({ ...line, r: { total: 7 } });
    expect(bad.ok).toBe(false);
    const next = mp.map(line);
    expect(next.ok && next.mapped.rollout.sample_index).toBe(1);
  });

  it("refuses a step that comes back after its counters were dropped instead of numbering it again", () => {
    const mp = mapper({ map });
    for (let s = 0; s <= TRACKED_STEPS; s++) expect(mp.map({ ...line, it: s }).ok).toBe(true);
    expect(mp.map({ ...line, it: 0 })).toEqual({
      ok: false,
      issue: {
        path: "it",
        message: `step: step 0 comes back after lines of ${TRACKED_STEPS} later steps; sample indices are counted in line order within a step, so give the file in step order or map sample_index=`,
      },
    });
    // The most recent steps are still counted.
    const again = mp.map({ ...line, it: TRACKED_STEPS });
    expect(again.ok && again.mapped.rollout.sample_index).toBe(1);
  });

  it("takes the run, sample index and trajectory id from the line when mapped", () => {
    const mp = new JsonlMapper(
      (() => {
        const m = buildImportMap({ map: `${map},run=meta.run,sample_index=meta.k,trajectory_id=meta.id` });
        if (!m.ok) throw new Error(m.message);
        return m.value;
      })(),
      { category: "imported" },
    );
    const r = mp.map({ ...line, meta: { run: "grpo-3", k: "4", id: "t-1" } });
    expect(r.ok && r.mapped.rollout).toMatchObject({ run_id: "grpo-3", sample_index: 4, trajectory_id: "t-1" });
    expect(mp.map({ ...line, meta: { run: 5, k: 0, id: "t" } })).toEqual({
      ok: false,
      issue: { path: "meta.run", message: "run: expected a run id (got 5)" },
    });
  });
});
