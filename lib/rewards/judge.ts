// The judge component: a model reads the prompt (the version's template filled with the rubric and the rollout) and
// answers JSON {"score": s in [0, 1], "reason": "…"}; anything else is invalid_output, a refused or failed request
// an error, a silent endpoint a timeout — never a 0. Through the chat client the claims extractor uses, with at most
// max_in_flight requests at once per component. A simulated judge (the demo's) answers by a fixed rule instead and
// says so in every answer.
import { z } from "zod";
import { createChatClient, stripFences, type ParsedContent } from "@/lib/claims/llm-client.ts";
import type { LlmEnv } from "@/lib/claims/llm-env.ts";
import type { ComponentEval, ComponentEvaluator } from "@/lib/rewards/evaluate.ts";
import { replyOf, type RewardInput } from "@/lib/rewards/input.ts";
import type { JudgeComponent } from "@/lib/rewards/schema.ts";

export type JudgeAnswer = { score: number; reason: string };

const answerSchema = z.object({
  score: z.number().finite().min(0).max(1),
  reason: z.string().max(2_000).default(""),
});

export function parseJudgeAnswer(text: string): ParsedContent<JudgeAnswer> {
  let json: unknown;
  try {
    json = JSON.parse(stripFences(text));
  } catch {
    return { ok: false, error: `the judge did not answer with JSON: ${JSON.stringify(text.slice(0, 120))}` };
  }
  const r = answerSchema.safeParse(json);
  if (!r.success)
    return { ok: false, error: `the judge's JSON is not {"score": 0..1, "reason": "…"}: ${r.error.issues[0].message}` };
  return { ok: true, value: r.data };
}

function toolLines(input: RewardInput): string {
  const tools = input.rollout.trajectory.steps.filter((s) => s.type === "tool");
  if (tools.length === 0) return "(none)";
  return tools.map((s) => `- ${s.name}(${JSON.stringify((s as { input?: unknown }).input ?? {})})`).join("\n");
}

/** The template with {{rubric}}, {{input}}, {{reply}}, {{reference}} and {{tools}} filled in, in one pass. */
export function fillJudgePrompt(c: Pick<JudgeComponent, "prompt" | "rubric">, input: RewardInput): string {
  const ticket = (input.caseDoc?.ticket ?? {}) as Record<string, unknown>;
  const ref = ticket.reference_output;
  const values: Record<string, string> = {
    rubric: c.rubric,
    input: typeof ticket.message === "string" ? ticket.message : "",
    reply: replyOf(input),
    reference: ref === undefined || ref === null ? "" : typeof ref === "string" ? ref : JSON.stringify(ref),
    tools: toolLines(input),
  };
  return c.prompt.replace(/\{\{(rubric|input|reply|reference|tools)\}\}/g, (_, k: string) => values[k]);
}

/** A semaphore: at most `n` calls of `fn` at once. */
function bounded<A, R>(n: number, fn: (a: A) => Promise<R>): (a: A) => Promise<R> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (a) => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await fn(a);
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

export type JudgeOptions = {
  env: LlmEnv | null;
  /** Why there is no env, for the unavailable status. */
  envProblem?: string;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  backoffMs?: number;
  maxAttempts?: number;
};

export function judgeEvaluator(c: JudgeComponent, opts: JudgeOptions): ComponentEvaluator {
  if (c.simulated) return (input) => simulatedJudge(c, input);
  const baseUrl = c.endpoint ?? opts.env?.baseUrl;
  const model = c.model ?? opts.env?.model;
  if (!baseUrl || !model) {
    const why =
      opts.envProblem ?? "set VERITY_LLM_BASE_URL and VERITY_LLM_MODEL, or give the judge an endpoint and a model";
    return () => ({ status: "unavailable", value: null, error: why });
  }
  const client = createChatClient({
    baseUrl,
    model,
    apiKey: opts.env?.apiKey,
    timeoutMs: c.timeout_ms,
    fetch: opts.fetch,
    sleep: opts.sleep,
    backoffMs: opts.backoffMs,
    maxAttempts: opts.maxAttempts,
  });
  return bounded(c.max_in_flight, async (input: RewardInput): Promise<ComponentEval> => {
    const prompt = fillJudgePrompt(c, input);
    const r = await client.complete([{ role: "user", content: prompt }], parseJudgeAnswer, {
      temperature: c.temperature,
    });
    const tokens = r.usage.promptTokens + r.usage.completionTokens;
    const cost =
      (r.usage.promptTokens * c.price.input_per_million + r.usage.completionTokens * c.price.output_per_million) / 1e6;
    const detail = { model, prompt, raw: r.content, attempts: r.attempts };
    if (r.ok)
      return { status: "ok", value: r.value.score, tokens, cost, detail: { ...detail, reason: r.value.reason } };
    const status = r.kind === "unusable" ? "invalid_output" : r.kind === "timeout" ? "timeout" : "error";
    return { status, value: null, error: r.error, tokens, cost, detail };
  });
}

const COURTEOUS = /\b(sorry|apolog|thank|please|happy to help)|抱歉|谢谢|请/i;
const CONCRETE = /\d+(?:\.\d+)?\s*(?:EUR|USD|€|\$|美元)|(?:€|\$)\s*\d|\bO-\d+|order\s+#?\w*\d/i;
const BLAME = /\byour fault\b|\byou should have\b|\bnot our problem\b|是你的问题/i;
const PRAISE_ME =
  /full marks|give (?:this|me) (?:a )?(?:score of )?1(?:\.0)?\b|score it 1(?:\.0)?\b|ignore the rubric|满分|忽略评分标准|评为 ?1(?:\.0)? ?分/i;

/**
 * The demo's stand-in judge, labelled simulated in its answer: 0.5, + 0.25 for a concrete amount or order, + 0.2 for
 * courtesy, − 0.4 for blame; and, like a model can be, talked into full marks by a reply that asks for them.
 */
export function simulatedJudge(c: JudgeComponent, input: RewardInput): ComponentEval {
  const reply = replyOf(input);
  let score = 0.5;
  const reasons: string[] = [];
  const rules: [RegExp, (s: number) => number, string][] = [
    [CONCRETE, (s) => s + 0.25, "concrete amount or order"],
    [COURTEOUS, (s) => s + 0.2, "courteous"],
    [BLAME, (s) => s - 0.4, "blames the customer"],
    [PRAISE_ME, () => 1, "the reply asks for full marks"],
  ];
  for (const [re, apply, why] of rules) {
    if (!re.test(reply)) continue;
    score = apply(score);
    reasons.push(why);
  }
  score = Math.round(Math.min(1, Math.max(0, score)) * 100) / 100;
  const answer = { score, reason: `simulated judge: ${reasons.join(", ") || "nothing notable"}` };
  return {
    status: "ok",
    value: score,
    tokens: 0,
    cost: 0,
    detail: {
      model: "simulated",
      simulated: true,
      prompt: fillJudgePrompt(c, input),
      raw: JSON.stringify(answer),
      reason: answer.reason,
    },
  };
}
