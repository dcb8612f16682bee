import { describe, expect, it } from "vitest";
import { clearProcessCaches, FingerprintCache, processCache } from "@/lib/server/fingerprint-cache.ts";

describe("FingerprintCache", () => {
  const clientA = {};
  const clientB = {};

  it("reuses a result while key and fingerprint are unchanged, and recomputes when either changes", async () => {
    const cache = new FingerprintCache<number>();
    let n = 0;
    const compute = async () => ++n;
    expect(await cache.get(clientA, "run-1", "f1", compute, 0)).toBe(1);
    expect(await cache.get(clientA, "run-1", "f1", compute, 1000)).toBe(1);
    expect(await cache.get(clientA, "run-2", "f1", compute, 1000)).toBe(2);
    expect(await cache.get(clientA, "run-1", "f2", compute, 1000)).toBe(3);
    // another database client never sees the first one's results
    expect(await cache.get(clientB, "run-1", "f2", compute, 1000)).toBe(4);
  });

  it("expires entries after maxAgeMs and never caches a null fingerprint", async () => {
    const cache = new FingerprintCache<number>({ maxAgeMs: 100 });
    let n = 0;
    const compute = async () => ++n;
    await cache.get(clientA, "k", "f", compute, 0);
    expect(await cache.get(clientA, "k", "f", compute, 99)).toBe(1);
    expect(await cache.get(clientA, "k", "f", compute, 100)).toBe(2);
    expect(await cache.get(clientA, "k", null, compute, 100)).toBe(3);
    expect(await cache.get(clientA, "k", null, compute, 100)).toBe(4);
  });

  it("shares one computation between concurrent callers and forgets a failed one", async () => {
    const cache = new FingerprintCache<number>();
    let calls = 0;
    let release!: (v: number) => void;
    const slow = () => {
      calls++;
      return new Promise<number>((r) => (release = r));
    };
    const a = cache.get(clientA, "k", "f", slow, 0);
    const b = cache.get(clientA, "k", "f", slow, 0);
    release(7);
    expect([await a, await b]).toEqual([7, 7]);
    expect(calls).toBe(1);

    await expect(cache.get(clientA, "bad", "f", () => Promise.reject(new Error("db gone")), 0)).rejects.toThrow(
      "db gone",
    );
    expect(await cache.get(clientA, "bad", "f", async () => 8, 0)).toBe(8);
  });

  it("keeps the most recently used maxEntries results", async () => {
    const cache = new FingerprintCache<string>({ maxEntries: 2 });
    let n = 0;
    const compute = (k: string) => async () => `${k}${++n}`;
    await cache.get(clientA, "a", "f", compute("a"), 0); // a1
    await cache.get(clientA, "b", "f", compute("b"), 0); // b2
    expect(await cache.get(clientA, "a", "f", compute("a"), 0)).toBe("a1"); // a used last
    await cache.get(clientA, "c", "f", compute("c"), 0); // c3 evicts b
    expect(await cache.get(clientA, "a", "f", compute("a"), 0)).toBe("a1");
    expect(await cache.get(clientA, "b", "f", compute("b"), 0)).toBe("b4");
  });

  it("processCache gives one cache per name, and clearProcessCaches empties them all", async () => {
    expect(processCache("test-x")).toBe(processCache("test-x"));
    expect(processCache("test-x")).not.toBe(processCache("test-y"));
    let n = 0;
    const compute = async () => ++n;
    await processCache<number>("test-x").get(clientA, "k", "f", compute);
    expect(await processCache<number>("test-x").get(clientA, "k", "f", compute)).toBe(1);
    clearProcessCaches();
    expect(await processCache<number>("test-x").get(clientA, "k", "f", compute)).toBe(2);
  });
});
