import { describe, expect, it } from "vitest";
import { JsonSyntaxError, streamTopLevel, type StreamedValue } from "@/lib/import/json-stream.ts";

async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

async function collect(text: string, opts: Parameters<typeof streamTopLevel>[1], size = 1 << 16) {
  const out: StreamedValue[] = [];
  for await (const v of streamTopLevel(chunks(text, size), opts)) out.push(v);
  return out;
}

async function syntaxError(text: string, opts: Parameters<typeof streamTopLevel>[1] = { arrays: ["tasks"] }) {
  try {
    await collect(text, opts);
  } catch (err) {
    if (err instanceof JsonSyntaxError) return err;
    throw err;
  }
  throw new Error("no syntax error");
}

const DOC = `{
  "timestamp": "2025-08-01",
  "info": {"environment_info": {"domain_name": "retail"}, "skip": [1, 2, {"x": null}]},
  "tasks": [{"id": "1", "s": "a \\"quoted\\" é \\u00e9 😀"}, {"id": 2}, [], "x", -1.5e3, true, null],
  "other": {"deep": [[[]]]},
  "simulations": [{"task_id": "1", "messages": []}]
}
`;

describe("streamTopLevel", () => {
  it("yields the elements of the named arrays one by one, the named values whole, and skips the rest", async () => {
    const out = await collect(DOC, { arrays: ["tasks", "simulations"], values: ["info"] });
    expect(out.map((v) => [v.key, v.index])).toEqual([
      ["info", null],
      ["tasks", 0],
      ["tasks", 1],
      ["tasks", 2],
      ["tasks", 3],
      ["tasks", 4],
      ["tasks", 5],
      ["tasks", 6],
      ["simulations", 0],
    ]);
    expect(out[1].value).toEqual({ id: "1", s: 'a "quoted" é é 😀' });
    expect(out.slice(2, 8).map((v) => v.value)).toEqual([{ id: 2 }, [], "x", -1500, true, null]);
    expect(out[0].value).toEqual(JSON.parse(DOC).info);
    expect([out[1].line, out[1].column]).toEqual([4, 13]);
  });

  it("gives the same values whatever the chunk boundaries (one byte at a time splits escapes and UTF-8)", async () => {
    const whole = await collect(DOC, { arrays: ["tasks", "simulations"] });
    const bytewise = await collect(DOC, { arrays: ["tasks", "simulations"] }, 1);
    expect(bytewise).toEqual(whole);
  });

  it("stops after the keys of `until`: what follows is not read", async () => {
    const out = await collect(`{"tasks": [1, 2], "simulations": [oops`, { arrays: ["tasks"], until: ["tasks"] });
    expect(out.map((v) => v.value)).toEqual([1, 2]);
  });

  it("a value that is not an array under an array key is yielded whole with index null", async () => {
    const out = await collect(`{"tasks": {"a": 1}}`, { arrays: ["tasks"] });
    expect(out).toMatchObject([{ key: "tasks", index: null, value: { a: 1 } }]);
  });

  it("names the line, column and JSON path of a syntax error", async () => {
    const err = await syntaxError(`{"tasks": [\n  {"id": "1"},\n  {"id": "2", "messages": [{"role": "user",}]}\n]}`);
    expect(err.line).toBe(3);
    expect(err.column).toBe(44);
    expect(err.path).toBe("tasks[1].messages[0]");
    expect(err.message).toBe(
      'malformed JSON at line 3, column 44 (in tasks[1].messages[0]): expected a key (a string in double quotes), found "}"',
    );
  });

  it.each([
    [`[1, 2]`, "expected the document to be a JSON object"],
    [`{"tasks": [1 2]}`, "expected , or ] after a value"],
    [`{"tasks": [01]}`, "malformed number"],
    [`{"tasks": ["a\tb"]}`, "a control character (U+0009) inside a string must be escaped"],
    [`{"tasks": ["\\x"]}`, "bad escape \\x in a string"],
    [`{"tasks": ["never closed`, "a string that is never closed"],
    [`{"tasks": [tru]}`, "expected a value"],
    [`{"tasks": []} x`, 'unexpected "x" after the end of the document'],
    [`{"tasks": [1,`, "unexpected the end of the file"],
    [`{"tasks" [1]}`, "expected : after the key"],
  ])("refuses %s: %s", async (text, reason) => {
    const err = await syntaxError(text);
    expect(err.reason).toContain(reason);
  });

  it("yields every value before a syntax error, then raises it", async () => {
    const seen: unknown[] = [];
    await expect(async () => {
      for await (const v of streamTopLevel(chunks(`{"tasks": [1, {"a": 2}, {"b" 3}]}`, 1 << 16), { arrays: ["tasks"] }))
        seen.push(v.value);
    }).rejects.toThrow(JsonSyntaxError);
    expect(seen).toEqual([1, { a: 2 }]);
  });

  it("refuses bytes that are not UTF-8", async () => {
    async function* bad(): AsyncGenerator<Uint8Array> {
      yield new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]);
    }
    await expect(async () => {
      for await (const v of streamTopLevel(bad(), { arrays: [] })) void v;
    }).rejects.toThrow("the file is not valid UTF-8");
  });
});
