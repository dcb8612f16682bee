// Claims extraction by an LLM behind an OpenAI-compatible chat-completions endpoint: one call per final reply,
// JSON output validated by zod. The model only extracts (domain.md: it never sees the truth and never decides a
// score); whatever it returns is restricted to the input's vocabulary by scoreWithExtraction.
import { z } from "zod";
import { buildExtractionMessages } from "@/lib/claims/llm-prompt.ts";
import type { ExtractionInput } from "@/lib/verifier/extractor.ts";
import { zodIssues, type Claims } from "@/lib/verifier/schema.ts";

export type LlmExtractorOptions = {
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

export class LlmExtractionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LlmExtractionError";
  }
}

const MAX_RETRY_AFTER_MS = 30_000;

// The model's answer: the claims shape, but tolerant of extra keys (models add "reasoning" and the like).
const llmClaimsSchema = z.object({
  claimed_writes: z.array(z.string()).default([]),
  mentioned: z
    .array(z.object({ key: z.string(), value: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional() }))
    .default([]),
  forbidden_hits: z.array(z.string()).default([]),
});

const completionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});

type Attempt = { ok: true; claims: Claims } | { ok: false; retry: boolean; error: string; retryAfterMs?: number };

/** A ClaimsExtractor whose extract is always asynchronous. */
export type LlmExtractor = { name: string; extract(input: ExtractionInput): Promise<Claims> };

export function createLlmExtractor(options: LlmExtractorOptions): LlmExtractor {
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

  async function attempt(body: string): Promise<Attempt> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const res = await fetchImpl(url, { method: "POST", headers, body, signal: controller.signal });
      const text = await res.text();
      if (res.status === 429 || res.status >= 500) {
        return {
          ok: false,
          retry: true,
          error: `HTTP ${res.status}`,
          retryAfterMs: retryAfter(res.headers.get("retry-after")),
        };
      }
      if (!res.ok) return { ok: false, retry: false, error: `HTTP ${res.status}: ${text.slice(0, 200)}` };
      return parseCompletion(text);
    } catch (err) {
      if (controller.signal.aborted) return { ok: false, retry: true, error: `timed out after ${timeoutMs} ms` };
      return { ok: false, retry: true, error: `request failed: ${(err as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    name: `llm:${model}`,
    async extract(input: ExtractionInput): Promise<Claims> {
      const body = JSON.stringify({
        model,
        temperature: 0,
        ...(jsonMode ? { response_format: { type: "json_object" } } : {}),
        messages: buildExtractionMessages(input),
      });
      let last = "";
      for (let n = 1; n <= maxAttempts; n++) {
        const result = await attempt(body);
        if (result.ok) return result.claims;
        last = result.error;
        if (!result.retry) break;
        if (n < maxAttempts)
          await sleep(Math.min(MAX_RETRY_AFTER_MS, Math.max(backoffMs * 2 ** (n - 1), result.retryAfterMs ?? 0)));
      }
      throw new LlmExtractionError(`LLM claims extraction (${model} at ${url}) failed: ${last}`);
    },
  };
}

/** The completion's message content as claims; unusable output is retried (sampling may do better next time). */
function parseCompletion(text: string): Attempt {
  let completion: unknown;
  try {
    completion = JSON.parse(text);
  } catch {
    return { ok: false, retry: true, error: "the endpoint did not return JSON" };
  }
  const c = completionSchema.safeParse(completion);
  if (!c.success) return { ok: false, retry: true, error: "the endpoint did not return a chat completion" };
  const content = stripFences(c.data.choices[0].message.content ?? "");
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return {
      ok: false,
      retry: true,
      error: `the model did not answer with JSON: ${JSON.stringify(content.slice(0, 120))}`,
    };
  }
  const claims = llmClaimsSchema.safeParse(json);
  if (!claims.success) {
    const detail = zodIssues(claims.error)
      .map((i) => `${i.path || "(root)"}: ${i.message}`)
      .join("; ");
    return { ok: false, retry: true, error: `the model's JSON is not claims: ${detail}` };
  }
  return { ok: true, claims: claims.data };
}

/** Models often wrap JSON in a ```json fence despite being told not to. */
function stripFences(s: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(s);
  return m ? m[1] : s.trim();
}

function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
