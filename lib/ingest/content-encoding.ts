// Content-Encoding of an ingest request body: identity, or gzip decompressed as a stream (never buffered whole). The
// line splitter runs on the decompressed bytes, so its per-line limit bounds what a small compressed body can become;
// the cap on inflated bytes bounds the whole: a gzip bomb (10 MB of zeros' deflate inflates to 10 GB) is stopped
// at the cap instead of holding a core for minutes. The same reader serves the CLI's gzip files.
import fs from "node:fs";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";

export type BodyEncoding = { ok: true; gzip: boolean } | { ok: false; message: string };

/** The body's encoding from its Content-Encoding header; anything but identity or gzip is refused by name. */
export function bodyEncoding(header: string | null): BodyEncoding {
  const codings = (header ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== "identity");
  if (codings.length === 0) return { ok: true, gzip: false };
  if (codings.length === 1 && (codings[0] === "gzip" || codings[0] === "x-gzip")) return { ok: true, gzip: true };
  return {
    ok: false,
    message: `Content-Encoding ${JSON.stringify(header)} is not supported: send the body as is, or gzip-compressed with Content-Encoding: gzip`,
  };
}

/** A byte count as people read it: 1 GiB, 64 MiB, or bytes below 1 KiB. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [
    ["GiB", 2 ** 30],
    ["MiB", 2 ** 20],
    ["KiB", 2 ** 10],
  ] as const) {
    if (n >= size) return `${Number((n / size).toFixed(2))} ${unit}`;
  }
  return `${n} bytes`;
}

/** A gzip input inflated past the cap on inflated bytes (VERITY_MAX_INFLATED_BYTES); reading stopped there. */
export class InflateLimitError extends Error {
  constructor(readonly limit: number) {
    super(
      `the gzip input inflates to more than ${formatBytes(limit)} (${limit} bytes), the limit on inflated bytes (VERITY_MAX_INFLATED_BYTES); nothing past it was read`,
    );
  }
}

/**
 * A gzip body's decompressed bytes, with backpressure; a corrupt or cut-short stream throws a message that says so.
 * At most `maxBytes` inflated bytes are passed on: the chunk that crosses the cap throws InflateLimitError, and the
 * source is then read no further (the decompressor is destroyed, so it inflates at most one chunk past the cap).
 */
export async function* gunzipChunks(
  source: AsyncIterable<Uint8Array>,
  maxBytes: number = Number.POSITIVE_INFINITY,
): AsyncGenerator<Uint8Array> {
  const input = Readable.from(source, { objectMode: false });
  const gunzip = createGunzip();
  input.on("error", (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  let inflated = 0;
  try {
    for await (const chunk of gunzip) {
      inflated += (chunk as Buffer).byteLength;
      if (inflated > maxBytes) throw new InflateLimitError(maxBytes);
      yield chunk as Buffer;
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // zlib's errors carry a Z_* code; anything else (the client went away) is passed on as it is.
    if (typeof e.code === "string" && e.code.startsWith("Z_")) {
      throw new Error(`the gzip body is corrupt or cut short (${e.message})`);
    }
    throw err;
  } finally {
    input.unpipe(gunzip);
    input.destroy();
    gunzip.destroy();
  }
}

/** Whether a file starts with gzip's magic bytes (1f 8b), whatever its name. */
export function isGzipFile(file: string): boolean {
  const fd = fs.openSync(file, "r");
  try {
    const head = Buffer.alloc(2);
    return fs.readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    fs.closeSync(fd);
  }
}

/** A file's bytes, decompressed as they stream when it is gzip (up to `maxInflatedBytes`, see gunzipChunks). */
export function openInputFile(file: string, maxInflatedBytes: number): AsyncIterable<Uint8Array> {
  const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  return isGzipFile(file) ? gunzipChunks(raw, maxInflatedBytes) : raw;
}
