// A fake OpenAI-compatible chat-completions server for tests: node:http on 127.0.0.1, port 0. Each request is
// recorded and answered by the test's handler, so tests can script successes, garbage, errors and silence.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type RecordedRequest = {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
};
/** What to answer: a status and body, or "hang" to never answer (for timeouts). */
export type FakeReply = { status?: number; body: unknown; headers?: Record<string, string> } | "hang";
export type FakeHandler = (req: RecordedRequest, n: number) => FakeReply;

export type FakeLlm = { baseUrl: string; requests: RecordedRequest[]; close(): Promise<void> };

/** A completion whose message content is `content` (a string, or a value serialised as JSON). */
export function completion(content: unknown): unknown {
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: typeof content === "string" ? content : JSON.stringify(content) },
        finish_reason: "stop",
      },
    ],
  };
}

export async function startFakeLlm(handler: FakeHandler): Promise<FakeLlm> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const recorded = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, json };
      requests.push(recorded);
      const reply = handler(recorded, requests.length);
      if (reply === "hang") return;
      const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The user message of a recorded chat request, parsed (the extractor sends its payload as JSON). */
export function userPayload(req: RecordedRequest): Record<string, unknown> {
  const messages = (req.json as { messages: { role: string; content: string }[] }).messages;
  return JSON.parse(messages.find((m) => m.role === "user")?.content ?? "{}");
}
