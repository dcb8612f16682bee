// A tau2-bench simulation → a Verity rollout (formats.md §2; the mapping is documented in docs/import.md). Pure.
//
// Messages become steps in order: an assistant or user text → an LLM step (`name` is the role), each tool call of
// the agent → a tool step with the tool message that answers it (matched by the call's id) as its output and
// `status` failed when that message says `error: true` or never came. A successful call of a write tool is a
// sandbox write, in order, with the index of its step. The last assistant text is the final reply; tau2-bench's
// own reward is `trained_reward`. The customer's own tool calls (telecom's user device) are LLM steps of the user,
// since they are not the agent's actions.
import { tau2DomainTools, tau2ToolKind } from "@/lib/import/tau2-tools.ts";
import {
  jsonPath,
  tau2MessageSchema,
  tau2SimulationSchema,
  type Tau2Message,
  type Tau2Simulation,
} from "@/lib/import/tau2-schema.ts";
import { idPart } from "@/lib/import/tau2-case.ts";
import { defaultGroupId } from "@/lib/ledger/store/rows.ts";
import { MAX_ID_LENGTH } from "@/lib/verifier/limits.ts";
import { zodIssues, type Issue } from "@/lib/verifier/schema.ts";

export type RolloutIdentity = { run: string; step: number; ticketId: string; domain: string };

type Step = Record<string, unknown>;
type ToolAnswer = { content: string | null | undefined; error: boolean };

/** A tool message's content: JSON when it parses as an object or array (tau2-bench serialises results), else text. */
function toolOutput(content: string | null | undefined): unknown {
  if (content == null) return null;
  const t = content.trim();
  if (t.startsWith("{") || t.startsWith("[")) {
    try {
      return JSON.parse(t);
    } catch {
      return content;
    }
  }
  return content;
}

/** Validates each message at its own path; returns the parsed messages or the first issue. */
function parseMessages(
  raw: readonly unknown[],
  at: string,
): { ok: true; messages: Tau2Message[] } | { ok: false; issue: Issue } {
  const messages: Tau2Message[] = [];
  for (let m = 0; m < raw.length; m++) {
    const r = tau2MessageSchema.safeParse(raw[m]);
    if (!r.success) {
      const issue = zodIssues(r.error)[0];
      return { ok: false, issue: { path: jsonPath(`${at}.messages[${m}]`, issue.path), message: issue.message } };
    }
    messages.push(r.data);
  }
  return { ok: true, messages };
}

/** The answers to tool calls, by call id (a MultiToolMessage answers several). */
function answersById(messages: readonly Tau2Message[]): Map<string, ToolAnswer> {
  const answers = new Map<string, ToolAnswer>();
  for (const m of messages) {
    if (m.role !== "tool") continue;
    const parts = m.tool_messages ?? [m];
    for (const p of parts)
      if (p.id != null && !answers.has(p.id)) answers.set(p.id, { content: p.content, error: p.error === true });
  }
  return answers;
}

export function messagesToTrajectory(
  messages: readonly Tau2Message[],
  domain: string,
): { steps: Step[]; writes: Record<string, unknown>[]; finalReply: string; tools: Set<string> } {
  const answers = answersById(messages);
  const steps: Step[] = [];
  const writes: Record<string, unknown>[] = [];
  const tools = new Set<string>();
  let finalReply = "";
  for (const m of messages) {
    if (m.role === "tool" || m.role === "system") continue;
    if (m.content && m.content.trim()) {
      steps.push({ type: "llm", name: m.role, output: m.content });
      if (m.role === "assistant") finalReply = m.content;
    }
    for (const call of m.tool_calls ?? []) {
      const answer = call.id ? answers.get(call.id) : undefined;
      const ok = answer !== undefined && !answer.error;
      if (m.role === "user" || call.requestor === "user") {
        steps.push({
          type: "llm",
          name: "user",
          tool_call: { name: call.name, arguments: call.arguments },
          output: toolOutput(answer?.content),
        });
        continue;
      }
      tools.add(call.name);
      if (ok && tau2ToolKind(domain, call.name) === "write")
        writes.push({ tool: call.name, args: call.arguments, step: steps.length });
      steps.push({
        type: "tool",
        name: call.name,
        input: call.arguments,
        output: answer ? toolOutput(answer.content) : null,
        status: ok ? "success" : "failed",
      });
    }
  }
  return { steps, writes, finalReply, tools };
}

/** The registry: every tool the domain's table knows, and any other the agent called, with its kind. */
export function registryFor(domain: string, called: Iterable<string>): { name: string; kind: string }[] {
  const names = new Set([...tau2DomainTools(domain), ...called]);
  return [...names].sort().map((name) => ({ name, kind: tau2ToolKind(domain, name) }));
}

export function trajectoryIdFor(run: string, taskId: string, trial: number): string {
  return `${run}/${idPart(taskId)}/${trial}`;
}

export type ParsedSimulation = { sim: Tau2Simulation; taskId: string };

/** Checks a simulation's top level (its task is looked up before it is mapped). */
export function parseTau2Simulation(
  raw: unknown,
  at: string,
): { ok: true; sim: Tau2Simulation } | { ok: false; issue: Issue } {
  const r = tau2SimulationSchema.safeParse(raw);
  if (!r.success) {
    const issue = zodIssues(r.error)[0];
    return { ok: false, issue: { path: jsonPath(at, issue.path), message: issue.message } };
  }
  return { ok: true, sim: r.data };
}

export function mapTau2Simulation(
  sim: Tau2Simulation,
  at: string,
  who: RolloutIdentity,
): { ok: true; rollout: Record<string, unknown> } | { ok: false; issue: Issue } {
  const parsed = parseMessages(sim.messages, at);
  if (!parsed.ok) return parsed;
  const trial = sim.trial ?? 0;
  const trajectoryId = trajectoryIdFor(who.run, sim.task_id, trial);
  if (trajectoryId.length > MAX_ID_LENGTH)
    return {
      ok: false,
      issue: {
        path: jsonPath(at, "task_id"),
        message: `the trajectory id ${trajectoryId.slice(0, 40)}… would be longer than ${MAX_ID_LENGTH} characters: give a shorter --run`,
      },
    };
  const { steps, writes, finalReply, tools } = messagesToTrajectory(parsed.messages, who.domain);
  const trajectory: Record<string, unknown> = { steps, final_reply: finalReply };
  if (sim.termination_reason) trajectory.termination_reason = sim.termination_reason;
  if (sim.id) trajectory.tau2_simulation_id = sim.id;
  return {
    ok: true,
    rollout: {
      kind: "rollout",
      trajectory_id: trajectoryId,
      run_id: who.run,
      step: who.step,
      group_id: defaultGroupId(who.run, who.step, who.ticketId),
      sample_index: trial,
      ticket_id: who.ticketId,
      trajectory,
      sandbox: { writes, tables: {} },
      tool_registry: registryFor(who.domain, tools),
      claims: null,
      trained_reward: sim.reward_info ? sim.reward_info.reward : null,
    },
  };
}
