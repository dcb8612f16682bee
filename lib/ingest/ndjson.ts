// Splits a byte stream into NDJSON lines without ever holding more than one line (plus one chunk) in memory.
// Splitting happens on bytes, before decoding: 0x0A never occurs inside a multi-byte UTF-8 sequence, so a character
// cut in half by a chunk boundary is simply joined with its other half before the line is decoded.
import { isUtf8 } from "node:buffer";

export type SplitLine = {
  /** 1-based line number in the stream (blank lines count, so numbers match an editor's). */
  line: number;
  /** The decoded line without its terminator (LF or CRLF); null when the line could not be kept (see error). */
  text: string | null;
  /** Why the line could not be kept: longer than the limit, or not valid UTF-8. */
  error?: string;
  /** Bytes of the stream consumed up to and including this line's terminator. */
  bytes: number;
};

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

function toBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === "string") return Buffer.from(chunk, "utf8");
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * Yields every non-blank line of an NDJSON byte stream. A final line without a newline is yielded too; a UTF-8
 * byte-order mark at the start is dropped. A line longer than `maxLineBytes` is skipped without being buffered
 * (only its number and an error are yielded), so a runaway line cannot exhaust memory.
 */
export async function* splitLines(
  source: AsyncIterable<Uint8Array | string>,
  opts: { maxLineBytes?: number } = {},
): AsyncGenerator<SplitLine> {
  for await (const lines of splitLineChunks(source, opts)) yield* lines;
}

/**
 * splitLines, one array per chunk of the source: the lines that chunk completes. An ingest reads a few hundred
 * thousand lines; stepping an async generator per line costs more than splitting them.
 */
export async function* splitLineChunks(
  source: AsyncIterable<Uint8Array | string>,
  opts: { maxLineBytes?: number } = {},
): AsyncGenerator<SplitLine[]> {
  const max = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let overflow = false;
  let lineNo = 0;
  let consumed = 0;

  const finish = (tail: Buffer): SplitLine | null => {
    lineNo++;
    if (overflow) {
      overflow = false;
      parts = [];
      partBytes = 0;
      return { line: lineNo, text: null, error: `line is longer than ${max} bytes`, bytes: consumed };
    }
    let buf = parts.length === 0 ? tail : Buffer.concat([...parts, tail], partBytes + tail.length);
    parts = [];
    partBytes = 0;
    if (buf.length > 0 && buf[buf.length - 1] === CR) buf = buf.subarray(0, buf.length - 1);
    if (buf.length > max)
      return { line: lineNo, text: null, error: `line is longer than ${max} bytes`, bytes: consumed };
    if (!isUtf8(buf)) return { line: lineNo, text: null, error: "line is not valid UTF-8", bytes: consumed };
    let text = buf.toString("utf8");
    if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === "") return null;
    return { line: lineNo, text, bytes: consumed };
  };

  for await (const raw of source) {
    const chunk = toBuffer(raw);
    const lines: SplitLine[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(LF, start);
      if (nl < 0) break;
      consumed += nl + 1 - start;
      const out = finish(chunk.subarray(start, nl));
      if (out) lines.push(out);
      start = nl + 1;
    }
    if (lines.length) yield lines;
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      consumed += rest.length;
      if (!overflow) {
        partBytes += rest.length;
        // Copy: the caller may reuse the chunk's memory once we return control to it.
        if (partBytes > max) {
          overflow = true;
          parts = [];
          partBytes = 0;
        } else {
          parts.push(Buffer.from(rest));
        }
      }
    }
  }
  if (overflow || partBytes > 0) {
    const out = finish(Buffer.alloc(0));
    if (out) yield [out];
  }
}
