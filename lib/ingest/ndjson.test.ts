import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitLines, type SplitLine } from "@/lib/ingest/ndjson.ts";

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield typeof p === "string" ? Buffer.from(p, "utf8") : p;
}

async function collect(src: AsyncIterable<Uint8Array>, maxLineBytes?: number): Promise<SplitLine[]> {
  const out: SplitLine[] = [];
  for await (const l of splitLines(src, { maxLineBytes })) out.push(l);
  return out;
}

/** Cuts a byte array at the given offsets (sorted, deduplicated, within range). */
function cut(bytes: Uint8Array, at: number[]): Uint8Array[] {
  const points = [...new Set(at.map((a) => a % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  out.push(bytes.subarray(prev));
  return out;
}

describe("splitLines", () => {
  it("splits LF and CRLF lines and keeps a final line without a newline", async () => {
    const lines = await collect(chunks('{"a":1}\n{"b":2}\r\n{"c":3}'));
    expect(lines.map((l) => [l.line, l.text])).toEqual([
      [1, '{"a":1}'],
      [2, '{"b":2}'],
      [3, '{"c":3}'],
    ]);
    expect(lines[2].bytes).toBe(Buffer.byteLength('{"a":1}\n{"b":2}\r\n{"c":3}'));
  });

  it("joins a line cut by chunk boundaries, including a CR cut from its LF", async () => {
    const lines = await collect(chunks('{"a"', ":1}\r", '\n{"b":', "2}\n"));
    expect(lines.map((l) => l.text)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it("joins a multi-byte UTF-8 character split across chunks", async () => {
    const bytes = Buffer.from('{"m":"café 💶"}\n', "utf8");
    const euro = bytes.indexOf(0xf0); // first byte of the 4-byte emoji
    const lines = await collect(
      chunks(bytes.subarray(0, euro + 1), bytes.subarray(euro + 1, euro + 3), bytes.subarray(euro + 3)),
    );
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0].text!)).toEqual({ m: "café 💶" });
  });

  it("skips blank lines but keeps numbering like an editor", async () => {
    const lines = await collect(chunks("\n  \n{}\n\r\n{}\n\n"));
    expect(lines.map((l) => l.line)).toEqual([3, 5]);
  });

  it("yields nothing for an empty stream", async () => {
    expect(await collect(chunks())).toEqual([]);
    expect(await collect(chunks(""))).toEqual([]);
  });

  it("drops a byte-order mark at the start", async () => {
    const lines = await collect(chunks(Buffer.from([0xef, 0xbb]), Buffer.from([0xbf, 0x7b, 0x7d, 0x0a])));
    expect(lines.map((l) => l.text)).toEqual(["{}"]);
  });

  it("reports invalid UTF-8 on its line and goes on", async () => {
    const lines = await collect(chunks(Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), "{}\n"));
    expect(lines[0]).toMatchObject({ line: 1, text: null, error: "line is not valid UTF-8" });
    expect(lines[1]).toMatchObject({ line: 2, text: "{}" });
  });

  it("skips an over-long line without buffering it, in one chunk or many", async () => {
    const long = "x".repeat(50);
    for (const parts of [[`${long}\n{}\n`], [long.slice(0, 20), long.slice(20), "\n{}"], [long]]) {
      const lines = await collect(chunks(...parts), 16);
      expect(lines[0]).toMatchObject({ line: 1, text: null });
      expect(lines[0].error).toMatch(/longer than 16 bytes/);
      if (lines.length > 1) expect(lines[1]).toMatchObject({ line: 2, text: "{}" });
    }
  });

  it("gives the same lines however the stream is chunked (property)", async () => {
    const lineArb = fc.string({ unit: "grapheme", maxLength: 12 }).map((s) => s.replace(/[\r\n\uFEFF]/g, ""));
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineArb, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.boolean(),
        fc.boolean(),
        async (texts, at, crlf, trailing) => {
          const body = texts.join(crlf ? "\r\n" : "\n") + (trailing ? "\n" : "");
          const bytes = Buffer.from(body, "utf8");
          const whole = await collect(chunks(bytes));
          const pieces = await collect(chunks(...cut(bytes, at)));
          expect(pieces).toEqual(whole);
          const expected = texts.map((t, i) => [i + 1, t] as const).filter(([, t]) => t.trim() !== "");
          expect(whole.map((l) => [l.line, l.text])).toEqual(expected);
          if (whole.length) expect(whole[whole.length - 1].bytes).toBeLessThanOrEqual(bytes.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
