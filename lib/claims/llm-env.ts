// Environment of the LLM claims extractor, read and validated in this one place. lib/verifier never reads env.
import { z } from "zod";
import { zodIssues } from "@/lib/verifier/schema.ts";

const emptyAsUnset = (v: unknown) => (v === "" ? undefined : v);

const llmEnvSchema = z.object({
  VERITY_LLM_BASE_URL: z.url({ error: "must be a URL such as https://api.openai.com/v1" }),
  VERITY_LLM_MODEL: z.string().min(1, { error: "must name a model" }),
  // Local OpenAI-compatible servers often need no key, so it is optional.
  VERITY_LLM_API_KEY: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
});

export type LlmEnv = { baseUrl: string; model: string; apiKey: string | undefined };

export function readLlmEnv(
  env: Record<string, string | undefined> = process.env,
): { ok: true; value: LlmEnv } | { ok: false; message: string } {
  const parsed = llmEnvSchema.safeParse({
    VERITY_LLM_BASE_URL: env.VERITY_LLM_BASE_URL,
    VERITY_LLM_MODEL: env.VERITY_LLM_MODEL,
    VERITY_LLM_API_KEY: env.VERITY_LLM_API_KEY,
  });
  if (!parsed.success) {
    const detail = zodIssues(parsed.error)
      .map((i) => `${i.path} ${i.message}`)
      .join("; ");
    return { ok: false, message: `LLM extractor is not configured: ${detail}` };
  }
  const e = parsed.data;
  return {
    ok: true,
    value: { baseUrl: e.VERITY_LLM_BASE_URL, model: e.VERITY_LLM_MODEL, apiKey: e.VERITY_LLM_API_KEY },
  };
}
