// A chat-completions client for an OpenAI-compatible endpoint, shared by the LLM claims extractor and the reward
// judge: one POST per attempt with a timeout covering the body, retries with exponential backoff (or the server's
// Retry-After when larger) on 429, 5xx, timeouts, network errors and answers the caller's parser finds unusable.
// The token counts of every attempt are summed: a retry costs what it cost.
import { z } from "zod";

export type ChatClientOptions = {
  /** e.g. "https://api.openai.com/v1"; the request goes to `${baseUrl}/chat/completions`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Per attempt, covering the response body too. */
  timeoutMs?: number;
  /** Attempts in total (first call included) for 429, 5xx, timeouts, network errors and unusable output. */
  maxAttempts?: number;
  /** Backoff before attempt n+1 is backoffMs * 2^(n-1), or the server's Retry-After when larger (capped). */
  backoffMs?: number;
  /** Ask for `response_format: {type: "json_object"}`; turn off for servers that reject the field. */
  jsonMode?: boolean;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
};

export type ChatMessage = { role: "system" | "user" | "assistant"; content: string };
export type Usage = { promptTokens: number; completionTokens: number };

/** What the caller's parser says of the model's message content. */
export type ParsedContent<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * A completed exchange, or why it failed: `unusable` when the endpoint answered but the last answer was not usable
 * (not a completion, or the parser refused it), `http` for a refused request, `timeout`, `network`.
 */
export type ChatResult<T> =
  | { ok: true; value: T; content: string; usage: Usage; attempts: number }
  | {
      ok: false;
      kind: "unusable" | "http" | "timeout" | "network";
      error: string;
      content: string | null;
      usage: Usage;
      attempts: number;
    };

const MAX_RETRY_AFTER_MS = 30_000;

const completionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
  usage: z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).optional(),
});

type Attempt<T> =
  | { ok: true; value: T; content: string; usage: Usage }
  | {
      ok: false;
      retry: boolean;
      kind: "unusable" | "http" | "timeout" | "network";
      error: string;
      content: string | null;
      usage: Usage;
      retryAfterMs?: number;
    };

const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0 };

export type ChatClient = {
  url: string;
  model: string;
  complete<T>(
    messages: ChatMessage[],
    parse: (content: string) => ParsedContent<T>,
    opts?: { temperature?: number },
  ): Promise<ChatResult<T>>;
};

export function createChatClient(options: ChatClientOptions): ChatClient {
  const {
    baseUrl,
    model,
    apiKey,
    timeoutMs = 30_000,
    maxAttempts = 3,
    backoffMs = 500,
    jsonMode = true,
    fetch: fetchImpl = fetch,
    sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  } = options;
  const url = `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;

  async function attempt<T>(body: string, parse: (content: string) => ParsedContent<T>): Promise<Attempt<T>> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const fail = (kind: "http" | "timeout" | "network", retry: boolean, error: string, retryAfterMs?: number) =>
      ({ ok: false, retry, kind, error, content: null, usage: NO_USAGE, retryAfterMs }) as const;
    try {
      const res = await fetchImpl(url, { method: "POST", headers, body, signal: controller.signal });
      const text = await res.text();
      if (res.status === 429 || res.status >= 500)
        return fail("http", true, `HTTP ${res.status}`, retryAfter(res.headers.get("retry-after")));
      if (!res.ok) return fail("http", false, `HTTP ${res.status}: ${text.slice(0, 200)}`);
      return parseCompletion(text, parse);
    } catch (err) {
      if (controller.signal.aborted) return fail("timeout", true, `timed out after ${timeoutMs} ms`);
      return fail("network", true, `request failed: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    url,
    model,
    async complete(messages, parse, opts = {}) {
      const body = JSON.stringify({
        model,
        temperature: opts.temperature ?? 0,
        ...(jsonMode ? { response_format: { type: "json_object" } } : {}),
        messages,
      });
      const usage = { promptTokens: 0, completionTokens: 0 };
      for (let n = 1; ; n++) {
        const r = await attempt(body, parse);
        usage.promptTokens += r.usage.promptTokens;
        usage.completionTokens += r.usage.completionTokens;
        if (r.ok) return { ok: true, value: r.value, content: r.content, usage, attempts: n };
        if (!r.retry || n >= maxAttempts)
          return { ok: false, kind: r.kind, error: r.error, content: r.content, usage, attempts: n };
        await sleep(Math.min(MAX_RETRY_AFTER_MS, Math.max(backoffMs * 2 ** (n - 1), r.retryAfterMs ?? 0)));
      }
    },
  };
}

/** The completion's message content through the caller's parser; unusable output is retried (sampling may do better). */
function parseCompletion<T>(text: string, parse: (content: string) => ParsedContent<T>): Attempt<T> {
  let completion: unknown;
  try {
    completion = JSON.parse(text);
  } catch {
    return {
      ok: false,
      retry: true,
      kind: "unusable",
      error: "the endpoint did not return JSON",
      content: null,
      usage: NO_USAGE,
    };
  }
  const c = completionSchema.safeParse(completion);
  if (!c.success)
    return {
      ok: false,
      retry: true,
      kind: "unusable",
      error: "the endpoint did not return a chat completion",
      content: null,
      usage: NO_USAGE,
    };
  const usage = {
    promptTokens: c.data.usage?.prompt_tokens ?? 0,
    completionTokens: c.data.usage?.completion_tokens ?? 0,
  };
  const content = c.data.choices[0].message.content ?? "";
  const parsed = parse(content);
  if (!parsed.ok) return { ok: false, retry: true, kind: "unusable", error: parsed.error, content, usage };
  return { ok: true, value: parsed.value, content, usage };
}

/** Models often wrap JSON in a ```json fence despite being told not to. */
export function stripFences(s: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(s);
  return m ? m[1] : s.trim();
}

function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
