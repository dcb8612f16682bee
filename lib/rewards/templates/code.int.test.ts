// The shipped code templates, run in the sandbox on reward-platform payloads with hand-computed rewards.
import { afterAll, describe, expect, it } from "vitest";
import { checkPythonSyntax, CodeRewardPool } from "@/lib/rewards/sandbox/index.ts";
import { CODE_TEMPLATES, codeTemplate } from "./code.ts";

function payload(reply: string, reference: unknown, steps: { name: string; input: string }[] = []) {
  return JSON.stringify({
    input: "My broadband is down",
    reference_output: reference,
    trajectory: {
      root: { output: reply },
      steps: steps.map((s) => ({ type: "tool", ...s, output: "down", status: "success" })),
    },
  });
}

const LINE = { name: "query_line_status", input: JSON.stringify({ line_id: "L-1001" }) };
const OTHER = { name: "create_ticket", input: JSON.stringify({ line_id: "L-1001" }) };

// [template, payload, reward]: the test's name is its index in this table.
const CASES: [string, string, number][] = [
  ["reply_equals_reference", payload("  fault_report\n", "fault_report"), 1],
  ["reply_equals_reference", payload("I opened a fault_report", "fault_report"), 0],
  ["reply_equals_reference", payload("42", 42), 1],
  ["reply_contains_reference", payload("I opened a FAULT_REPORT for you", "fault_report"), 1],
  ["reply_contains_reference", payload("I opened a ticket", "fault_report"), 0],
  ["tool_called", payload("done", "x", [OTHER, LINE]), 1],
  ["tool_called", payload("done", "x", [OTHER]), 0],
  ["tool_argument_equals_reference", payload("done", "L-1001", [LINE]), 1],
  ["tool_argument_equals_reference", payload("done", "L-1002", [LINE]), 0],
  ["tool_argument_equals_reference", payload("done", "L-1001", [OTHER]), 0],
  ["answer_and_tool", payload("A fault_report is open", "fault_report", [LINE]), 1],
  ["answer_and_tool", payload("A fault_report is open", "fault_report", [OTHER]), 0.7],
  ["answer_and_tool", payload("Sorry", "fault_report", [LINE]), 0.3],
  ["answer_and_tool", payload("Sorry", "fault_report"), 0],
];

const pools = new Map<string, CodeRewardPool>();
afterAll(async () => {
  for (const p of pools.values()) await p.close();
});

describe("code templates", () => {
  it.each(CASES.map((c, i) => [i, ...c] as const))("case %i: %s", async (_i, id, body, reward) => {
    if (!pools.has(id)) pools.set(id, new CodeRewardPool({ source: codeTemplate(id).source, workers: 1 }));
    const o = await pools.get(id)!.run(body);
    expect(o).toMatchObject({ status: "ok", error: null });
    expect(o.reward).toBeCloseTo(reward, 12);
  });

  it("every template compiles, says to let exceptions raise, and a malformed payload is an error, not a 0", async () => {
    for (const t of CODE_TEMPLATES) {
      expect(await checkPythonSyntax(t.source), t.id).toEqual({ ok: true });
      expect(t.source).toMatch(/Let it raise: catching every exception and returning 0 hides a broken reward/);
      const pool = new CodeRewardPool({ source: t.source, workers: 1 });
      const o = await pool.run(JSON.stringify({ input: "no trajectory" }));
      await pool.close();
      expect(o, t.id).toMatchObject({ status: "error", reward: null, error: "KeyError: 'trajectory'" });
    }
  });
});
