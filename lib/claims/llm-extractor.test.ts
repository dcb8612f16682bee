// The LLM extractor against a real local HTTP server (no network mocks): success, retries, timeouts, errors, and
// what the request may contain.
import { afterEach, describe, expect, it } from "vitest";
import {
  completion,
  startFakeLlm,
  userPayload,
  type FakeHandler,
  type FakeLlm,
} from "@/lib/testing/fake-llm-server.ts";
import { readLlmEnv } from "@/lib/claims/llm-env.ts";
import { createLlmExtractor, LlmExtractionError, type LlmExtractorOptions } from "@/lib/claims/llm-extractor.ts";
import { DEFAULT_CONFIG } from "@/lib/verifier/config.ts";
import { makeCase, makeRollout, reads, tool, write } from "@/lib/testing/verifier-fixtures.ts";
import { scoreWithExtraction } from "@/lib/verifier/score-with-extraction.ts";

const INPUT = {
  final_reply: "I have refunded your order.",
  write_tools: ["finance.issue_refund", "order.cancel"],
  mention_keys: ["refund_amount"],
  forbidden_codes: ["blame_customer"],
};
const CLAIMS = {
  claimed_writes: ["finance.issue_refund"],
  mentioned: [{ key: "refund_amount", value: 12.5 }],
  forbidden_hits: [],
};

let server: FakeLlm | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(handler: FakeHandler, options: Partial<LlmExtractorOptions> = {}) {
  server = await startFakeLlm(handler);
  const sleeps: number[] = [];
  const extractor = createLlmExtractor({
    baseUrl: server.baseUrl,
    model: "test-model",
    apiKey: "sk-test",
    backoffMs: 50,
    sleep: async (ms) => void sleeps.push(ms),
    ...options,
  });
  return { extractor, sleeps, requests: server.requests };
}

describe("createLlmExtractor", () => {
  it("posts one chat completion and returns the validated claims", async () => {
    const { extractor, requests } = await setup(() => ({ body: completion(CLAIMS) }));
    expect(extractor.name).toBe("llm:test-model");
    expect(await extractor.extract(INPUT)).toEqual(CLAIMS);
    expect(requests).toHaveLength(1);
    const [req] = requests;
    expect(req.method).toBe("POST");
    expect(req.url).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer sk-test");
    expect(req.json).toMatchObject({ model: "test-model", temperature: 0, response_format: { type: "json_object" } });
    expect(userPayload(req)).toEqual({
      write_tools: INPUT.write_tools,
      mention_keys: INPUT.mention_keys,
      forbidden_codes: INPUT.forbidden_codes,
      reply: INPUT.final_reply,
    });
  });

  it("retries after an answer that is not JSON, then succeeds", async () => {
    const { extractor, requests, sleeps } = await setup((_, n) => ({
      body: completion(n === 1 ? "Sure! The reply claims a refund." : CLAIMS),
    }));
    expect(await extractor.extract(INPUT)).toEqual(CLAIMS);
    expect(requests).toHaveLength(2);
    expect(sleeps).toEqual([50]);
  });

  it("accepts JSON wrapped in a code fence and ignores extra keys", async () => {
    const { extractor } = await setup(() => ({
      body: completion("```json\n" + JSON.stringify({ ...CLAIMS, reasoning: "…" }) + "\n```"),
    }));
    expect(await extractor.extract(INPUT)).toEqual(CLAIMS);
  });

  it("gives a clear error when the answer stays unusable", async () => {
    const { extractor, requests } = await setup(() => ({
      body: completion({ claimed_writes: "finance.issue_refund" }),
    }));
    await expect(extractor.extract(INPUT)).rejects.toThrow(/failed: the model's JSON is not claims: claimed_writes: /);
    expect(requests).toHaveLength(3);
  });

  it("times out a silent server and retries, then fails", async () => {
    // attempts are counted where they start (a wrapped fetch): on a loaded machine a 100 ms timeout can fire
    // before the server has even read the request, so the server's own count would be a race
    let attempts = 0;
    const counting: typeof fetch = (input, init) => {
      attempts++;
      return fetch(input, init);
    };
    const { extractor } = await setup(() => "hang", { timeoutMs: 100, maxAttempts: 2, fetch: counting });
    const err = await extractor.extract(INPUT).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmExtractionError);
    expect((err as Error).message).toMatch(/timed out after 100 ms/);
    expect(attempts).toBe(2);
  });

  it("retries 500s with exponential backoff until the attempts run out", async () => {
    const { extractor, requests, sleeps } = await setup(() => ({ status: 500, body: { error: "boom" } }));
    await expect(extractor.extract(INPUT)).rejects.toThrow(/HTTP 500/);
    expect(requests).toHaveLength(3);
    expect(sleeps).toEqual([50, 100]);
  });

  it("honours Retry-After on 429", async () => {
    const { extractor, sleeps } = await setup((_, n) =>
      n === 1
        ? { status: 429, body: { error: "slow down" }, headers: { "retry-after": "2" } }
        : { body: completion(CLAIMS) },
    );
    expect(await extractor.extract(INPUT)).toEqual(CLAIMS);
    expect(sleeps).toEqual([2000]);
  });

  it("does not retry a client error", async () => {
    const { extractor, requests } = await setup(() => ({ status: 401, body: { error: "bad key" } }));
    await expect(extractor.extract(INPUT)).rejects.toThrow(/HTTP 401: .*bad key/);
    expect(requests).toHaveLength(1);
  });

  it("retries when the server is unreachable", async () => {
    const extractor = createLlmExtractor({
      baseUrl: "http://127.0.0.1:1/v1",
      model: "m",
      maxAttempts: 2,
      sleep: async () => {},
    });
    await expect(extractor.extract(INPUT)).rejects.toThrow(/request failed/);
  });
});

describe("scoreWithExtraction with the LLM extractor", () => {
  // Distinctive truth values, so that any leak into the request would be visible.
  const snapshot = {
    order: { id: "ORD-SECRET-9431", paid_amount: 73.41, currency: "CHF", customer_id: "CUST-5512" },
    attachments: [{ id: "ATT-77821" }],
    policy: { damaged_item: { return_shipping_paid_by: "merchant-pays-8812" } },
  };
  const args = { order_id: "ORD-SECRET-9431", amount: 73.41, currency: "CHF" };
  const caseDoc = makeCase({}, snapshot);
  const rollout = makeRollout({
    claims: null,
    reply: "Your refund is complete and reaches your card in 3-5 business days.",
    steps: [...reads(), tool("finance.issue_refund", args)],
    writes: [write("finance.issue_refund", args, 3)],
  });

  it("sends no snapshot, sandbox or spec value to the model", async () => {
    const { extractor, requests } = await setup(() => ({ body: completion(CLAIMS) }));
    await scoreWithExtraction(rollout, caseDoc, DEFAULT_CONFIG, extractor);
    expect(requests).toHaveLength(1);
    const body = requests[0].body;
    for (const secret of [
      "ORD-SECRET-9431",
      "73.41",
      "CHF",
      "CUST-5512",
      "ATT-77821",
      "merchant-pays-8812",
      "$order",
      "paid_amount",
      "damaged_item",
      "label_paid_by",
      "T-1001",
    ]) {
      expect(body).not.toContain(secret);
    }
    expect(Object.keys(requests[0].json as object).sort()).toEqual([
      "messages",
      "model",
      "response_format",
      "temperature",
    ]);
    expect(Object.keys(userPayload(requests[0])).sort()).toEqual([
      "forbidden_codes",
      "mention_keys",
      "reply",
      "write_tools",
    ]);
  });

  it("records claims_source llm:<model> and drops names the input did not offer", async () => {
    const invented = {
      claimed_writes: ["finance.issue_refund", "vault.open"],
      mentioned: [{ key: "refund_eta", value: "3-5 business days" }, { key: "bank_pin" }],
      forbidden_hits: ["x"],
    };
    const { extractor } = await setup(() => ({ body: completion(invented) }));
    const record = await scoreWithExtraction(rollout, caseDoc, DEFAULT_CONFIG, extractor);
    expect(record.claims_source).toBe("llm:test-model");
    expect(record.claims).toEqual({
      claimed_writes: ["finance.issue_refund"],
      mentioned: [{ key: "refund_eta", value: "3-5 business days" }],
      forbidden_hits: [],
    });
    expect(record.guardrails).toEqual([]);
  });

  it("does not call the model for a bundle that carries claims or a case with a spec error", async () => {
    const { extractor, requests } = await setup(() => ({ body: completion(CLAIMS) }));
    await scoreWithExtraction(makeRollout(), makeCase(), DEFAULT_CONFIG, extractor);
    const broken = makeCase({ required_writes: [{ tool: "finance.issue_refund", args: { amount: "$order.nope" } }] });
    const r = await scoreWithExtraction(makeRollout({ claims: null }), broken, DEFAULT_CONFIG, extractor);
    expect(r.status).toBe("spec_error");
    expect(requests).toHaveLength(0);
  });

  it("rejects when extraction fails, naming the extractor", async () => {
    const { extractor } = await setup(() => ({ status: 503, body: "down" }), { maxAttempts: 1 });
    await expect(scoreWithExtraction(rollout, caseDoc, DEFAULT_CONFIG, extractor)).rejects.toThrow(
      /claims extractor llm:test-model failed: .*HTTP 503/,
    );
  });
});

describe("readLlmEnv", () => {
  it("reads and validates the three variables", () => {
    expect(
      readLlmEnv({
        VERITY_LLM_BASE_URL: "http://localhost:8000/v1",
        VERITY_LLM_MODEL: "qwen",
        VERITY_LLM_API_KEY: "k",
      }),
    ).toEqual({
      ok: true,
      value: { baseUrl: "http://localhost:8000/v1", model: "qwen", apiKey: "k" },
    });
    expect(
      readLlmEnv({ VERITY_LLM_BASE_URL: "http://localhost:8000/v1", VERITY_LLM_MODEL: "qwen", VERITY_LLM_API_KEY: "" }),
    ).toMatchObject({
      ok: true,
      value: { apiKey: undefined },
    });
    const bad = readLlmEnv({ VERITY_LLM_BASE_URL: "not a url" });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toMatch(/VERITY_LLM_BASE_URL must be a URL.*VERITY_LLM_MODEL/);
  });
});
