// Content-Encoding of an ingest request body: identity, or gzip decompressed as a stream (never buffered whole). The
// line splitter runs on the decompressed bytes, so its per-line limit bounds what a small compressed body can become.
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

/** A gzip body's decompressed bytes, with backpressure; a corrupt or cut-short stream throws a message that says so. */
export async function* gunzipChunks(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const input = Readable.from(source, { objectMode: false });
  const gunzip = createGunzip();
  input.on("error", (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // zlib's errors carry a Z_* code; anything else (the client went away) is passed on as it is.
    if (typeof e.code === "string" && e.code.startsWith("Z_")) {
      throw new Error(`the gzip body is corrupt or cut short (${e.message})`);
    }
    throw err;
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}
