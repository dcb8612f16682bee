// Claims extraction by an LLM behind an OpenAI-compatible chat-completions endpoint: one call per final reply,
// JSON output validated by zod. The model only extracts (domain.md: it never sees the truth and never decides a
// score); whatever it returns is restricted to the input's vocabulary by scoreWithExtraction.
import { z } from "zod";
import { createChatClient, stripFences, type ChatClientOptions, type ParsedContent } from "@/lib/claims/llm-client.ts";
import { buildExtractionMessages } from "@/lib/claims/llm-prompt.ts";
import type { ExtractionInput } from "@/lib/verifier/extractor.ts";
import { zodIssues, type Claims } from "@/lib/verifier/schema.ts";

export type LlmExtractorOptions = ChatClientOptions;

export class LlmExtractionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LlmExtractionError";
  }
}

// The model's answer: the claims shape, but tolerant of extra keys (models add "reasoning" and the like).
const llmClaimsSchema = z.object({
  claimed_writes: z.array(z.string()).default([]),
  mentioned: z
    .array(z.object({ key: z.string(), value: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional() }))
    .default([]),
  forbidden_hits: z.array(z.string()).default([]),
});

/** A ClaimsExtractor whose extract is always asynchronous. */
export type LlmExtractor = { name: string; extract(input: ExtractionInput): Promise<Claims> };

export function createLlmExtractor(options: LlmExtractorOptions): LlmExtractor {
  const client = createChatClient(options);
  return {
    name: `llm:${options.model}`,
    async extract(input: ExtractionInput): Promise<Claims> {
      const r = await client.complete(buildExtractionMessages(input), parseClaims, { temperature: 0 });
      if (r.ok) return r.value;
      throw new LlmExtractionError(`LLM claims extraction (${options.model} at ${client.url}) failed: ${r.error}`);
    },
  };
}

function parseClaims(text: string): ParsedContent<Claims> {
  const content = stripFences(text);
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return { ok: false, error: `the model did not answer with JSON: ${JSON.stringify(content.slice(0, 120))}` };
  }
  const claims = llmClaimsSchema.safeParse(json);
  if (!claims.success) {
    const detail = zodIssues(claims.error)
      .map((i) => `${i.path || "(root)"}: ${i.message}`)
      .join("; ");
    return { ok: false, error: `the model's JSON is not claims: ${detail}` };
  }
  return { ok: true, value: claims.data };
}
