import { describe, expect, it } from "vitest";
import { clearProcessCaches, FingerprintCache, processCache } from "@/lib/db/fingerprint-cache.ts";

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

  it("peek finds a result being computed or computed, at its fingerprint, unexpired, and computes nothing", async () => {
    const cache = new FingerprintCache<number>({ maxAgeMs: 100 });
    let release!: (v: number) => void;
    expect(cache.peek(clientA, "k", "f", 0)).toBeUndefined();
    const running = cache.get(clientA, "k", "f", () => new Promise<number>((r) => (release = r)), 0);
    const peeked = cache.peek(clientA, "k", "f", 10);
    expect(peeked).toBe(running);
    release(3);
    expect(await peeked).toBe(3);
    expect(cache.peek(clientA, "k", "f2", 10)).toBeUndefined();
    expect(cache.peek(clientA, "k", null, 10)).toBeUndefined();
    expect(cache.peek(clientB, "k", "f", 10)).toBeUndefined();
    expect(cache.peek(clientA, "k", "f", 100)).toBeUndefined();
    // nothing was computed by peeking: the next get computes
    expect(await cache.get(clientA, "k2", "f", async () => 4, 10)).toBe(4);
    expect(await cache.peek(clientA, "k2", "f", 20)).toBe(4);
    // holds: a result of the key at any fingerprint, unexpired, of this client
    expect(cache.holds(clientA, "k2", 20)).toBe(true);
    expect(cache.holds(clientA, "k3", 20)).toBe(false);
    expect(cache.holds(clientB, "k2", 20)).toBe(false);
    expect(cache.holds(clientA, "k2", 110)).toBe(false);
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

  it("keeps the most recently used results up to maxWeight, by their weights once computed", async () => {
    const cache = new FingerprintCache<string>({ maxEntries: 100, weigh: (v) => v.length, maxWeight: 10 });
    let n = 0;
    const compute = (v: string) => async () => (++n, v);
    await cache.get(clientA, "a", "f", compute("aaaa"), 0);
    await cache.get(clientA, "b", "f", compute("bbbb"), 0);
    expect(cache.weightOf(clientA)).toBe(8);
    await cache.get(clientA, "a", "f", compute("aaaa"), 0); // a used last
    await cache.get(clientA, "c", "f", compute("cccc"), 0); // 12 > 10: b, the least recently used, goes
    expect(cache.weightOf(clientA)).toBe(8);
    expect(n).toBe(3);
    expect(cache.peek(clientA, "b", "f", 0)).toBeUndefined();
    expect(await cache.peek(clientA, "a", "f", 0)).toBe("aaaa");
    // one result heavier than the bound is kept alone (the newest is never dropped), and drops every other
    await cache.get(clientA, "d", "f", compute("d".repeat(20)), 0);
    expect(cache.weightOf(clientA)).toBe(20);
    expect([cache.peek(clientA, "a", "f", 0), cache.peek(clientA, "c", "f", 0)]).toEqual([undefined, undefined]);
    // an expired result is recomputed in its place, its weight counted once
    await cache.get(clientA, "d", "f", compute("dd"), 10 * 60_000);
    expect(cache.weightOf(clientA)).toBe(2);
    // other clients' results weigh apart
    expect(cache.weightOf(clientB)).toBe(0);
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

  describe("latest", () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    /** A computation of `ms` returning `v`, counted. */
    const counted = () => {
      const calls: number[] = [];
      const make = (v: number, ms: number) => async () => {
        calls.push(v);
        await sleep(ms);
        return v;
      };
      return { calls, make };
    };

    it("hands back the slow earlier result at once while the current one is computed, then the current one", async () => {
      const cache = new FingerprintCache<number>();
      const { calls, make } = counted();
      expect(await cache.latest(clientA, "k", "f1", make(1, 40), { slowMs: 20 }, 1000)).toEqual({
        value: 1,
        asOf: null,
      });
      // the inputs change: the earlier result, asked for at 1000, comes back while the new one has not finished
      let release!: (v: number) => void;
      let computing = 0;
      const held = () => {
        computing++;
        return new Promise<number>((r) => (release = r));
      };
      expect(await cache.latest(clientA, "k", "f2", held, { slowMs: 20 }, 2000)).toEqual({ value: 1, asOf: 1000 });
      // a caller meanwhile gets the same and joins the computation already running
      expect(await cache.latest(clientA, "k", "f2", held, { slowMs: 20 }, 2100)).toEqual({ value: 1, asOf: 1000 });
      expect(computing).toBe(1);
      release(2);
      expect(await cache.get(clientA, "k", "f2", make(9, 0), 2100)).toBe(2);
      expect(await cache.latest(clientA, "k", "f2", make(9, 0), { slowMs: 0 }, 2200)).toEqual({
        value: 2,
        asOf: null,
      });
      expect(calls).toEqual([1]);
    });

    it("waits for a fast result (a reader sees its own writes), and never hands back another key's or an expired one", async () => {
      const cache = new FingerprintCache<number>({ maxAgeMs: 5000 });
      const { calls, make } = counted();
      await cache.latest(clientA, "k", "f1", make(1, 0), { slowMs: 50 }, 1000);
      expect(await cache.latest(clientA, "k", "f2", make(2, 0), { slowMs: 50 }, 2000)).toEqual({
        value: 2,
        asOf: null,
      });
      await cache.latest(clientA, "slow", "f1", make(3, 60), { slowMs: 50 }, 2000);
      expect(await cache.latest(clientA, "other", "f2", make(4, 0), { slowMs: 50 }, 2000)).toEqual({
        value: 4,
        asOf: null,
      });
      expect(await cache.latest(clientB, "slow", "f2", make(5, 0), { slowMs: 50 }, 2000)).toEqual({
        value: 5,
        asOf: null,
      });
      // "slow" at f1 was asked for at 2000: at 7000 it has expired, so the caller waits for f2
      expect(await cache.latest(clientA, "slow", "f2", make(6, 0), { slowMs: 50 }, 7000)).toEqual({
        value: 6,
        asOf: null,
      });
      expect(calls).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it("keeps handing back the earlier result while the current one fails, and a null fingerprint is computed", async () => {
      const cache = new FingerprintCache<number>();
      await cache.latest(clientA, "k", "f1", async () => (await sleep(30), 1), { slowMs: 20 }, 1000);
      let failures = 0;
      const failing = async () => {
        failures++;
        throw new Error("db gone");
      };
      expect(await cache.latest(clientA, "k", "f2", failing, { slowMs: 20 }, 2000)).toEqual({ value: 1, asOf: 1000 });
      await sleep(0);
      expect(await cache.latest(clientA, "k", "f2", failing, { slowMs: 20 }, 2000)).toEqual({ value: 1, asOf: 1000 });
      expect(failures).toBe(2);
      await expect(cache.get(clientA, "k", "f2", failing, 2000)).rejects.toThrow("db gone");
      expect(await cache.latest(clientA, "k", null, async () => 9, { slowMs: 20 }, 2000)).toEqual({
        value: 9,
        asOf: null,
      });
    });
  });
});
