import { describe, expect, it } from "vitest";
import { gzipSync } from "node:zlib";
import { env } from "@/lib/env.ts";
import { gunzipChunks, InflateLimitError } from "@/lib/ingest/content-encoding.ts";
import { gzipBomb } from "@/lib/testing/gzip-bomb.ts";

const GiB = 2 ** 30;
const MiB = 2 ** 20;

/** Inflates `source` through gunzipChunks, counting the bytes passed on, until it ends or throws. */
async function drain(source: AsyncIterable<Uint8Array>, max: number) {
  let inflated = 0;
  try {
    for await (const c of gunzipChunks(source, max)) inflated += c.byteLength;
    return { inflated, error: null };
  } catch (err) {
    return { inflated, error: err as Error };
  }
}

describe("the cap on inflated bytes", () => {
  it("stops a 10 GiB bomb at a 1 MiB cap after reading a sliver of its 10 MB", async () => {
    const bomb = gzipBomb(10 * GiB);
    expect(bomb.compressedBytes).toBeGreaterThan(5 * MiB);
    const r = await drain(bomb.chunks, MiB);
    expect(r.error).toBeInstanceOf(InflateLimitError);
    expect(r.error?.message).toBe(
      "the gzip input inflates to more than 1 MiB (1048576 bytes), the limit on inflated bytes (VERITY_MAX_INFLATED_BYTES); nothing past it was read",
    );
    expect(r.inflated).toBeLessThanOrEqual(MiB);
    expect(bomb.read()).toBeLessThan(200 * 1024);
  });

  it("stops the same bomb at the default cap, 1 GiB, having read about a thousandth of the inflated bytes", async () => {
    const cap = env().VERITY_MAX_INFLATED_BYTES;
    expect(cap).toBe(GiB);
    const bomb = gzipBomb(10 * GiB);
    const r = await drain(bomb.chunks, cap);
    expect(r.error).toBeInstanceOf(InflateLimitError);
    expect(r.error?.message).toContain("more than 1 GiB (1073741824 bytes)");
    expect(r.inflated).toBeLessThanOrEqual(cap);
    expect(r.inflated).toBeGreaterThan(cap - MiB);
    expect(bomb.read()).toBeLessThan(bomb.compressedBytes / 8);
  }, 60_000);

  it("passes a body under the cap whole", async () => {
    const text = '{"a":1}\n'.repeat(10_000);
    const r = await drain(
      (async function* () {
        yield gzipSync(text);
      })(),
      text.length,
    );
    expect(r).toEqual({ inflated: text.length, error: null });
  });
});
