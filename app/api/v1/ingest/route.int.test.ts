// The ingest and export routes as a pipeline calls them: bearer tokens with scopes, a streamed body, JSON answers.
import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/v1/ingest/route.ts";
import { GET } from "@/app/api/v1/runs/[run]/ledger.ndjson/route.ts";
import { createApiToken, createUser } from "@/lib/admin/mutations.ts";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { bulkPool, closeBulkPool } from "@/lib/db/pool.ts";
import { limitsBody } from "@/lib/testing/limits-body.ts";

const id = randomBytes(4).toString("hex");
const RUN = `api-${id}`;
let ingestToken: string;
let readToken: string;

beforeAll(async () => {
  const email = `ingest-admin-${id}@test.local`;
  const u = await createUser({ email, name: "", role: "admin", password: "a long enough password" }, { label: "test" });
  if (!u.ok) throw new Error(u.error);
  ingestToken = (await createApiToken({ name: "pipeline", scopes: ["ingest"] }, { userId: u.id, email })).token;
  readToken = (await createApiToken({ name: "reader", scopes: ["read"] }, { userId: u.id, email })).token;
});
afterAll(async () => closeBulkPool(process.env.DATABASE_URL!));

const line = (v: unknown) => JSON.stringify(v) + "\n";

function post(
  body: BodyInit | null,
  token: string | null,
  query = "",
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/x-ndjson", ...extraHeaders };
  if (token) headers.authorization = `Bearer ${token}`;
  return POST(
    new Request(`http://verity.test/api/v1/ingest${query}`, {
      method: "POST",
      headers,
      body,
      duplex: "half",
    } as RequestInit),
  );
}

describe("POST /api/v1/ingest", () => {
  it("needs a token with the ingest scope", async () => {
    expect((await post(line(caseLine(`T-${id}`)), null)).status).toBe(401);
    const wrongScope = await post(line(caseLine(`T-${id}`)), readToken);
    expect(wrongScope.status).toBe(403);
    expect((await wrongScope.json()).error.code).toBe("insufficient_scope");
  });

  it("streams the body: the first batch is committed before the client has sent the rest", async () => {
    const ticket = `T-${id}`;
    const head = [caseLine(ticket), rolloutLine(`${RUN}/1`, ticket, { run: RUN })].map(line).join("");
    const tail =
      [rolloutLine(`${RUN}/2`, ticket, { run: RUN }), externalScore(`${RUN}/3`, ticket, 0.5, { run: RUN })]
        .map(line)
        .join("") + "{broken\n";
    const pool = bulkPool();
    let sentHead = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!sentHead) {
          sentHead = true;
          controller.enqueue(new TextEncoder().encode(head));
          return;
        }
        // Hold the rest back until the server has committed the first batch (2 lines): a handler that buffered the
        // whole body would never get there, and this test would time out.
        for (let i = 0; ; i++) {
          const { rows } = await pool.query("select count(*)::int as n from rollouts where run_id = $1", [RUN]);
          if (rows[0].n === 1) break;
          if (i > 400) throw new Error("nothing was committed before the end of the body");
          await new Promise((r) => setTimeout(r, 25));
        }
        controller.enqueue(new TextEncoder().encode(tail));
        controller.close();
      },
    });
    const res = await post(body, ingestToken, "?batch=2");
    expect(res.status).toBe(200);
    const s = await res.json();
    expect(s).toMatchObject({ ok: true, lines: 5, accepted: 4, rejected: 1, scored: 2, last_committed_line: 5 });
    expect(s.rejects).toEqual([{ line: 5, path: "", message: expect.stringMatching(/^invalid JSON/) }]);
  });

  it("maps platform payloads with identity from the query, and refuses bad query parameters", async () => {
    const payload = {
      input: "Router broken",
      reference_output: "fault_report",
      trajectory: { root: { output: "Fault opened." }, steps: [] },
      reward: 0.8,
    };
    const res = await post(line(payload), ingestToken, `?format=platform&run=${RUN}-p&step=7`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      accepted: 1,
      by_kind: { case: { accepted: 1 }, rollout: { accepted: 1 }, score: { accepted: 1 } },
    });
    const bad = await post(line(payload), ingestToken, "?format=csv");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/^format:/);
    expect((await post(null, ingestToken)).status).toBe(400);
  });

  it("stores the other 9,998 lines of a 10,000-line body with one line nested too deep and one id too long", async () => {
    const body = limitsBody(`${RUN}-lim`);
    const res = await post(body.text, ingestToken);
    expect(res.status).toBe(200);
    const s = await res.json();
    expect(s).toMatchObject({ ok: true, lines: 10_000, accepted: 9_998, rejected: 2, last_committed_line: 10_000 });
    expect(s.rejects).toEqual([
      { line: body.deep.line, path: body.deep.path, message: "nested deeper than 64 levels of objects and arrays" },
      { line: body.longId.line, path: "trajectory_id", message: "too long: at most 200 characters (got 3000)" },
    ]);
    const { rows } = await bulkPool().query("select count(*)::int as n from rollouts where run_id = $1", [
      `${RUN}-lim`,
    ]);
    expect(rows[0].n).toBe(9_998);
  }, 300_000);

  it("holds platform payloads to the same limits, with paths into the payload", async () => {
    const payload = (extra: Record<string, unknown>) => ({
      input: `Router broken ${id}`,
      trajectory: { root: { output: "Fault opened." }, steps: [] },
      reward: 0.8,
      ...extra,
    });
    const deepInput = '{"a":'.repeat(5000) + "1" + "}".repeat(5000);
    const body =
      [
        line(payload({ trajectory_id: `${RUN}-pl/1` })),
        line(payload({ trajectory_id: "t".repeat(201) })),
        line(payload({ ticket_id: "T<script>" })),
        line(payload({ run_id: "r".repeat(195) })), // the derived trajectory id RUN/s7/l4 is past the limit
      ].join("") +
      `{"input": "x", "trajectory": {"root": {"output": "o"}, "steps": [{"type": "tool", "name": "t", "input": ${deepInput}}]}, "reward": 1}\n`;
    const res = await post(body, ingestToken, `?format=platform&run=${RUN}-pl&step=7`);
    expect(res.status).toBe(200);
    const s = await res.json();
    expect(s).toMatchObject({ ok: true, lines: 5, accepted: 1, rejected: 4 });
    expect(s.rejects.map((r: { line: number; path: string }) => [r.line, r.path])).toEqual([
      [2, "trajectory_id"],
      [3, "ticket_id"],
      [4, "trajectory_id"],
      [5, ["trajectory", "steps", "0", "input", ...Array(60).fill("a")].join(".")],
    ]);
    expect(s.rejects[2].message).toMatch(
      /^not given, and the one derived .* would have 201 characters \(at most 200\)/,
    );
    const tooLongRun = await post(line(payload({})), ingestToken, `?format=platform&run=${"r".repeat(201)}&step=7`);
    expect(tooLongRun.status).toBe(400);
    expect((await tooLongRun.json()).error.message).toMatch(/^run: too long: at most 200 characters/);
  });

  it("reports a body cut short of its Content-Length", async () => {
    const text = line(caseLine(`T-${id}-cut`));
    const req = new Request("http://verity.test/api/v1/ingest", {
      method: "POST",
      headers: { authorization: `Bearer ${ingestToken}`, "content-length": String(text.length + 100) },
      body: new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(text)), c.close()) }),
      duplex: "half",
    } as RequestInit);
    const res = await POST(req);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      ok: false,
      failed_at: "body",
      accepted: 1,
      error: expect.stringMatching(/ended after \d+ of \d+ bytes/),
    });
  });
});

describe("POST /api/v1/ingest with Content-Encoding: gzip", () => {
  const gzip = { "content-encoding": "gzip" };
  /** A body delivered in small chunks, as over a network (gzip members and lines straddle them). */
  const inChunks = (bytes: Uint8Array, size = 97) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += size) c.enqueue(bytes.subarray(i, i + size));
        c.close();
      },
    });

  it("decompresses the body as it streams and ingests its lines", async () => {
    const ticket = `T-${id}-gz`;
    const lines = [caseLine(ticket), externalScore(`${RUN}-gz/1`, ticket, 0.25, { run: `${RUN}-gz` })];
    for (let i = 1; i <= 40; i++) lines.push(rolloutLine(`${RUN}-gz/${i}`, ticket, { run: `${RUN}-gz` }));
    const res = await post(inChunks(gzipSync(lines.map(line).join(""))), ingestToken, "?batch=7", gzip);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      ok: true,
      lines: 42,
      accepted: 42,
      rejected: 0,
      by_kind: { case: { accepted: 1 }, rollout: { accepted: 40 }, score: { accepted: 1 } },
      last_committed_line: 42,
    });
  });

  it("answers 400 with a clear message for a body that is not gzip, or is cut short", async () => {
    const notGzip = await post(line(caseLine(`T-${id}-nogz`)), ingestToken, "", gzip);
    expect(notGzip.status).toBe(400);
    expect(await notGzip.json()).toMatchObject({
      ok: false,
      failed_at: "body",
      lines: 0,
      error: expect.stringMatching(/^stopped: the gzip body is corrupt or cut short/),
    });

    const ticket = `T-${id}-gzcut`;
    const text = [caseLine(ticket), ...[1, 2, 3].map((i) => rolloutLine(`${RUN}-gzcut/${i}`, ticket))]
      .map(line)
      .join("");
    const whole = gzipSync(text);
    const cut = await post(inChunks(whole.subarray(0, whole.length - 6)), ingestToken, "?batch=2", gzip);
    expect(cut.status).toBe(400);
    const s = await cut.json();
    expect(s).toMatchObject({ ok: false, failed_at: "body", error: expect.stringMatching(/gzip body is corrupt/) });
    // The lines that did decompress before the end are committed, batch by batch, like any body cut short.
    expect(s.last_committed_line).toBeLessThan(4);
  });

  it("applies the line limit to the decompressed bytes", async () => {
    // 16 MiB + 1 of one line compresses to a few kB: the limit must hold on what it decompresses to.
    const huge = `{"kind":"case","pad":"${"a".repeat(16 * 1024 * 1024)}"}\n`;
    const ticket = `T-${id}-gzbig`;
    const res = await post(inChunks(gzipSync(huge + line(caseLine(ticket))), 4096), ingestToken, "", gzip);
    expect(res.status).toBe(200);
    const s = await res.json();
    expect(s).toMatchObject({ ok: true, lines: 2, accepted: 1, rejected: 1 });
    expect(s.rejects).toEqual([{ line: 1, path: "", message: expect.stringMatching(/^line is longer than/) }]);
  });

  it("refuses an encoding other than gzip by name", async () => {
    const res = await post(line(caseLine(`T-${id}-br`)), ingestToken, "", { "content-encoding": "br" });
    expect(res.status).toBe(415);
    expect((await res.json()).error).toMatchObject({
      code: "unsupported_encoding",
      message: expect.stringMatching(/"br"/),
    });
  });
});

describe("GET /api/v1/runs/{run}/ledger.ndjson", () => {
  const get = (run: string, token: string | null, query = "") =>
    GET(
      new Request(`http://verity.test/api/v1/runs/${encodeURIComponent(run)}/ledger.ndjson${query}`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      }),
      {
        params: Promise.resolve({ run: encodeURIComponent(run) }),
      },
    );

  it("exports the run with a read token, and only with one", async () => {
    expect((await get(RUN, null)).status).toBe(401);
    expect((await get(RUN, ingestToken)).status).toBe(403);
    const res = await get(RUN, readToken, "?cases=0");
    expect(res.status).toBe(200);
    const records = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(records.map((r) => r.trajectory_id).sort()).toEqual([`${RUN}/1`, `${RUN}/2`, `${RUN}/3`]);
    expect((await get(`${RUN}-missing`, readToken)).status).toBe(404);
  });
});
