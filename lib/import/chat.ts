// Chat messages (OpenAI-style: role, content, tool_calls, tool_call_id) as a rollout's trajectory, and a prompt's
// text. The same reading as the Python client's adapters (clients/python/verity_client/grpo.py), so a completion
// logged from a trainer and the same completion imported from its dump become the same rollout. Pure.

type Step = Record<string, unknown>;
type Message = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A message's text: a string, or the text parts of a list of content parts. */
export function messageText(content: unknown): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((p) => (isObject(p) && typeof p.text === "string" ? p.text : "")).join("");
  return String(content);
}

/** Whether a value is a list of chat messages (objects with a string role). */
export function isMessageList(v: unknown): v is Message[] {
  return Array.isArray(v) && v.every((m) => isObject(m) && typeof m.role === "string");
}

/** The text a ticket shows for a prompt: the text itself, or the last user message of a chat prompt. */
export function promptText(prompt: string | Message[]): string {
  if (typeof prompt === "string") return prompt;
  const users = prompt.filter((m) => m.role === "user");
  return users.length ? messageText(users[users.length - 1].content) : "";
}

/**
 * A completion as steps and a final reply. Text is the final reply, with no steps. Messages: the last assistant
 * message without tool calls is the final reply; other assistant text becomes llm steps, each tool call a tool step
 * (status success: a dump does not say otherwise) whose output is its tool message's content, matched by
 * tool_call_id, else by name, else the oldest unanswered call; other roles with text become llm steps.
 */
export function completionTrajectory(completion: string | Message[]): {
  steps: Step[];
  finalReply: string;
  tools: Set<string>;
} {
  if (typeof completion === "string") return { steps: [], finalReply: completion, tools: new Set() };
  const steps: Step[] = [];
  const tools = new Set<string>();
  const byCallId = new Map<string, Step>();
  const unanswered: Step[] = [];
  let finalReply = "";
  let lastAssistant = -1;
  completion.forEach((m, i) => {
    if (m.role === "assistant") lastAssistant = i;
  });
  completion.forEach((m, i) => {
    const text = messageText(m.content);
    if (m.role === "assistant") {
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      if (i === lastAssistant && calls.length === 0) finalReply = text;
      else if (text) steps.push({ type: "llm", name: "assistant", output: text });
      for (const call of calls) {
        const c = isObject(call) ? call : {};
        const fn = isObject(c.function) ? c.function : c;
        const name = typeof fn.name === "string" && fn.name ? fn.name : "unknown";
        tools.add(name);
        const args = fn.arguments;
        const step: Step = { type: "tool", name, input: args === undefined || args === null ? {} : args };
        step.status = "success";
        steps.push(step);
        if (typeof c.id === "string" && c.id) byCallId.set(c.id, step);
        unanswered.push(step);
      }
    } else if (m.role === "tool") {
      let step = typeof m.tool_call_id === "string" ? byCallId.get(m.tool_call_id) : undefined;
      step ??= unanswered.find((s) => s.name === m.name) ?? unanswered[0];
      if (step) {
        step.output = text;
        unanswered.splice(unanswered.indexOf(step), 1);
      }
    } else if (text) {
      steps.push({ type: "llm", name: String(m.role), output: text });
    }
  });
  return { steps, finalReply, tools };
}
