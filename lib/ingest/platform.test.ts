import { describe, expect, it } from "vitest";
import { mapPlatformPayload, payloadPath } from "@/lib/ingest/platform.ts";
import { parseLineValue } from "@/lib/ingest/schema.ts";

const payload = {
  input: "My broadband is down",
  reference_output: "fault_report",
  trajectory: {
    root: { output: "I have opened fault report F-1 for you." },
    steps: [
      { type: "llm", name: "assistant", input: "think", output: "Let me check." },
      { type: "tool", name: "query_line_status", input: '{"line_id": "L-9"}', output: "down", status: "success" },
      { type: "tool", name: "open_fault_report", input: "not json", output: "F-1", status: "failed" },
    ],
  },
  reward: 0.7,
};

describe("mapPlatformPayload", () => {
  it("maps root.output, the steps one to one, reference_output to the ticket and reward to an external record", () => {
    const m = mapPlatformPayload(payload, 12, { run: "grpo-9", step: 300 });
    expect(m.ok).toBe(true);
    if (!m.ok) return;
    const { rollout, score } = m.mapped;
    expect(rollout).toMatchObject({
      kind: "rollout",
      trajectory_id: "grpo-9/s300/l12",
      run_id: "grpo-9",
      step: 300,
      trajectory: { steps: payload.trajectory.steps, final_reply: "I have opened fault report F-1 for you." },
      sandbox: { writes: [], tables: {} },
      tool_registry: [
        { name: "open_fault_report", kind: "other" },
        { name: "query_line_status", kind: "other" },
      ],
      claims: null,
    });
    expect(score).toEqual({
      kind: "score",
      source: "external",
      trajectory_id: "grpo-9/s300/l12",
      run_id: "grpo-9",
      step: 300,
      ticket_id: rollout.ticket_id,
      group_id: rollout.group_id,
      reward: 0.7,
    });
    expect(m.mapped.case).toMatchObject({
      kind: "case",
      ticket: {
        id: rollout.ticket_id,
        category: "imported",
        message: "My broadband is down",
        reference_output: "fault_report",
      },
      env_snapshot: {},
      verifier_spec: {},
    });
  });

  it("produces wire objects the ingest schemas accept, with tool inputs that are JSON strings parsed", () => {
    const m = mapPlatformPayload(payload, 1, { run: "r", step: 1 });
    if (!m.ok) throw new Error(m.issue.message);
    const rollout = parseLineValue(m.mapped.rollout);
    expect(rollout.ok).toBe(true);
    if (rollout.ok && rollout.kind === "rollout") {
      expect(rollout.value.trajectory.steps[1]).toMatchObject({ input: { line_id: "L-9" } });
      expect(rollout.value.trajectory.steps[2]).toMatchObject({ input: "not json" });
    }
    expect(parseLineValue(m.mapped.score).ok).toBe(true);
    expect(parseLineValue(m.mapped.case).ok).toBe(true);
  });

  it("takes identity from extra fields before the flags", () => {
    const m = mapPlatformPayload(
      {
        ...payload,
        trajectory_id: "t-1",
        run_id: "run-x",
        step: 5,
        ticket_id: "T-7",
        group_id: "g-1",
        sample_index: 2,
      },
      3,
      { run: "ignored", step: 1 },
    );
    if (!m.ok) throw new Error(m.issue.message);
    expect(m.mapped.rollout).toMatchObject({
      trajectory_id: "t-1",
      run_id: "run-x",
      step: 5,
      ticket_id: "T-7",
      group_id: "g-1",
      sample_index: 2,
    });
  });

  it("gives rollouts of the same prompt the same ticket and group, and different prompts different ones", () => {
    const a = mapPlatformPayload(payload, 1, { run: "r", step: 1 });
    const b = mapPlatformPayload(payload, 2, { run: "r", step: 1 });
    const c = mapPlatformPayload({ ...payload, input: "My TV is down" }, 3, { run: "r", step: 1 });
    if (!a.ok || !b.ok || !c.ok) throw new Error("mapping failed");
    expect(a.mapped.rollout.ticket_id).toBe(b.mapped.rollout.ticket_id);
    expect(a.mapped.rollout.group_id).toBe(b.mapped.rollout.group_id);
    expect(a.mapped.rollout.trajectory_id).not.toBe(b.mapped.rollout.trajectory_id);
    expect(c.mapped.rollout.ticket_id).not.toBe(a.mapped.rollout.ticket_id);
  });

  it("rejects a payload without identity, with an unknown field, or without a final reply", () => {
    expect(mapPlatformPayload(payload, 1, {})).toEqual({
      ok: false,
      issue: { path: "run_id", message: "no run: give run_id in the payload or --run" },
    });
    expect(mapPlatformPayload(payload, 1, { run: "r" })).toMatchObject({ ok: false, issue: { path: "step" } });
    expect(mapPlatformPayload({ ...payload, rewrad: 1 }, 1, { run: "r", step: 1 })).toMatchObject({
      ok: false,
      issue: { path: "rewrad", message: 'unknown field "rewrad"' },
    });
    expect(mapPlatformPayload({ ...payload, trajectory: { steps: [] } }, 1, { run: "r", step: 1 })).toMatchObject({
      ok: false,
      issue: { path: "trajectory.root" },
    });
    expect(mapPlatformPayload("text", 1, { run: "r", step: 1 })).toMatchObject({ ok: false, issue: { path: "" } });
  });

  it("names the payload's own field in errors found on the mapped rollout", () => {
    expect(payloadPath("trajectory.final_reply")).toBe("trajectory.root.output");
    expect(payloadPath("trajectory.steps.2.status")).toBe("trajectory.steps.2.status");
  });
});
