import { describe, expect, it } from "vitest";
import { z } from "zod";
import { apiRoute, runParams, textParam } from "@/lib/api/route.ts";

const get = (path: string, init?: RequestInit) => new Request(`http://verity.test${path}`, init);

async function errorOf(res: Response) {
  expect(res.headers.get("cache-control")).toBe("no-store");
  return { status: res.status, body: await res.json() };
}

describe("apiRoute", () => {
  const query = z.strictObject({ n: z.coerce.number().int("must be a whole number"), tag: z.string().optional() });
  const echo = apiRoute({ auth: { public: true }, params: runParams, query }, ({ params, query }) =>
    Response.json({ run: params.run, n: query.n, tag: query.tag ?? null }),
  );
  const ctx = (run: string) => ({ params: Promise.resolve({ run }) });

  it("hands the handler the parsed params and query", async () => {
    const res = await echo(get("/x?n=3&tag=a"), ctx("run %41"));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ run: "run %41", n: 3, tag: "a" });
  });

  it("answers a bad query 400 in the one error body, naming the field or the unknown parameter", async () => {
    expect(await errorOf(await echo(get("/x?n=2.5"), ctx("r")))).toEqual({
      status: 400,
      body: { error: { code: "bad_request", message: "n: must be a whole number" } },
    });
    expect(await errorOf(await echo(get("/x?n=1&colour=red"), ctx("r")))).toEqual({
      status: 400,
      body: { error: { code: "bad_request", message: 'unknown parameter "colour"' } },
    });
  });

  it("takes the 400's code from the route, and a parser's own status and code", async () => {
    const filters = apiRoute(
      { auth: { public: true }, query: () => ({ ok: false, error: "after: is not a cursor" }), invalid: "bad_filter" },
      () => new Response("unreached"),
    );
    expect(await errorOf(await filters(get("/x")))).toEqual({
      status: 400,
      body: { error: { code: "bad_filter", message: "after: is not a cursor" } },
    });
    const chart = apiRoute(
      {
        auth: { public: true },
        params: (p) => ({ ok: false, status: 404, code: "not_found", error: `No chart ${JSON.stringify(p.chart)}.` }),
      },
      () => new Response("unreached"),
    );
    expect(await errorOf(await chart(get("/x"), { params: Promise.resolve({ chart: "pie" }) }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: 'No chart "pie".' } },
    });
  });

  describe("a JSON body", () => {
    const post = apiRoute(
      {
        auth: { public: true },
        body: { schema: z.object({ run: z.string().min(1, "is required") }), maxBytes: 1 << 20 },
      },
      ({ body }) => Response.json({ got: body.run }),
    );
    const send = (text: string) => post(get("/x", { method: "POST", body: text }));

    it("is parsed by its schema", async () => {
      expect(await (await send('{"run":"a"}')).json()).toEqual({ got: "a" });
      expect(await errorOf(await send('{"run":""}'))).toEqual({
        status: 400,
        body: { error: { code: "bad_request", message: "run: is required" } },
      });
    });

    it("that is not JSON is a 400, one over its limit a 413", async () => {
      expect(await errorOf(await send("{run"))).toEqual({
        status: 400,
        body: { error: { code: "bad_request", message: "The body is not JSON." } },
      });
      expect(await errorOf(await send(`"${"x".repeat(1 << 20)}"`))).toEqual({
        status: 413,
        body: { error: { code: "too_large", message: "The request is larger than 1 MB." } },
      });
    });
  });

  it("passes a streamed answer through as the handler made it", async () => {
    const stream = apiRoute(
      { auth: { public: true } },
      () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode("a\n"));
              c.enqueue(new TextEncoder().encode("b\n"));
              c.close();
            },
          }),
          { headers: { "content-type": "application/x-ndjson" } },
        ),
    );
    const res = await stream(get("/x"));
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    expect(await res.text()).toBe("a\nb\n");
  });
});

describe("textParam", () => {
  it("takes any text but a NUL character, which no text column can hold", () => {
    expect(textParam.safeParse("grpo-main/s1 é").success).toBe(true);
    const bad = textParam.safeParse("a\0b");
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].message).toBe("must not contain a NUL character (%00)");
  });
});
