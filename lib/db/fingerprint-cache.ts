// The last few results of an expensive read, per database client, keyed by what was asked and by a fingerprint of
// what the result is computed from. A caller supplies the fingerprint (a cheap summary that any write of the inputs
// changes, read in the same request); an unchanged fingerprint means an unchanged result. Concurrent callers of one
// key share the computation while it runs; a failed computation is forgotten; entries also expire after a few
// minutes, whatever happens. In-process: each console process keeps its own.

export type FingerprintCacheOptions<T = unknown> = {
  maxEntries?: number;
  maxAgeMs?: number;
  /**
   * A result's size (bytes, roughly), and the most the results kept for one client may weigh together: past it, the
   * least recently used are forgotten, as past maxEntries. For results whose size varies by thousands (a search's
   * matches in a run of 10,000 rollouts or of 10 M), where a count of entries bounds neither the memory nor the reuse.
   */
  weigh?: (value: T) => number;
  maxWeight?: number;
};

type Entry<T> = {
  key: string;
  at: number;
  value: Promise<T>;
  /** How long the computation took, once it has succeeded. */
  ms?: number;
  /** Its weight (options.weigh), once it has succeeded and while it is kept. */
  weight?: number;
};

/** One client's results, most recently used last, and their weight. */
type Kept<T> = { entries: Map<string, Entry<T>>; weight: number };

/** A result and, when it is an earlier one handed back while the current one is computed, when that was asked. */
export type Latest<T> = { value: T; asOf: number | null };

/** An entry's name: what was asked and the fingerprint it was computed at. */
const entryKey = (key: string, fingerprint: string | null) => JSON.stringify([key, fingerprint]);

export class FingerprintCache<T> {
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;
  readonly #weigh?: (value: T) => number;
  readonly #maxWeight: number;
  // One map per database client, so two databases (a test's scratch database, a replica) never share results.
  #byClient = new WeakMap<object, Kept<T>>();

  constructor(opts: FingerprintCacheOptions<T> = {}) {
    this.#maxEntries = opts.maxEntries ?? 16;
    this.#maxAgeMs = opts.maxAgeMs ?? 5 * 60_000;
    this.#weigh = opts.weigh;
    this.#maxWeight = opts.maxWeight ?? Infinity;
  }

  /**
   * The cached result of `key` computed at `fingerprint`, or `compute()`'s. A null fingerprint (nothing to notice a
   * change by) is never cached.
   */
  get(
    client: object,
    key: string,
    fingerprint: string | null,
    compute: () => Promise<T>,
    now = Date.now(),
  ): Promise<T> {
    if (fingerprint === null) return compute();
    const kept = this.#cacheOf(client);
    const cache = kept.entries;
    const k = entryKey(key, fingerprint);
    const hit = cache.get(k);
    if (hit && now - hit.at < this.#maxAgeMs) {
      cache.delete(k);
      cache.set(k, hit); // most recently used last
      return hit.value;
    }
    if (hit) this.#forget(kept, k);
    const started = performance.now();
    const value = compute();
    const entry: Entry<T> = { key, at: now, value };
    cache.set(k, entry);
    value.then(
      (v) => {
        entry.ms = performance.now() - started;
        if (!this.#weigh || cache.get(k) !== entry) return;
        entry.weight = this.#weigh(v);
        kept.weight += entry.weight;
        this.#trim(kept);
      },
      () => {
        if (cache.get(k)?.value === value) this.#forget(kept, k);
      },
    );
    this.#trim(kept);
    return value;
  }

  /** Forgets the least recently used results past maxEntries, then past maxWeight (never the newest). */
  #trim(kept: Kept<T>): void {
    const over = () => kept.entries.size > this.#maxEntries || (kept.weight > this.#maxWeight && kept.entries.size > 1);
    while (over()) this.#forget(kept, kept.entries.keys().next().value!);
  }

  #forget(kept: Kept<T>, k: string): void {
    kept.weight -= kept.entries.get(k)?.weight ?? 0;
    kept.entries.delete(k);
  }

  /** The weight of the results kept for `client` (options.weigh; 0 without it). */
  weightOf(client: object): number {
    return this.#cacheOf(client).weight;
  }

  /**
   * The cached result of `key` at `fingerprint` (being computed, or computed within maxAgeMs), or undefined: nothing
   * is computed. A null fingerprint finds nothing.
   */
  peek(client: object, key: string, fingerprint: string | null, now = Date.now()): Promise<T> | undefined {
    if (fingerprint === null) return undefined;
    const hit = this.#cacheOf(client).entries.get(entryKey(key, fingerprint));
    return hit && now - hit.at < this.#maxAgeMs ? hit.value : undefined;
  }

  /** Whether a result of `key` at any fingerprint is cached (being computed, or computed within maxAgeMs). */
  holds(client: object, key: string, now = Date.now()): boolean {
    for (const e of this.#cacheOf(client).entries.values())
      if (e.key === key && now - e.at < this.#maxAgeMs) return true;
    return false;
  }

  /**
   * As `get`, except that a caller need not wait for a slow result: when the result at `fingerprint` is not ready
   * but one of the same key at an earlier fingerprint is — computed within maxAgeMs and in `slowMs` or more — that
   * one is handed back at once with `asOf` (when it was asked for), while the result at `fingerprint` is computed
   * (or goes on being computed) for the callers after it. A fast result is always waited for, so a reader sees its
   * own writes wherever the wait is short.
   */
  async latest(
    client: object,
    key: string,
    fingerprint: string | null,
    compute: () => Promise<T>,
    opts: { slowMs: number },
    now = Date.now(),
  ): Promise<Latest<T>> {
    const current = this.#cacheOf(client).entries.get(entryKey(key, fingerprint));
    const ready = fingerprint !== null && current?.ms !== undefined && now - current.at < this.#maxAgeMs;
    const earlier = ready || fingerprint === null ? null : this.#latestReady(client, key, opts.slowMs, now);
    const value = this.get(client, key, fingerprint, compute, now);
    if (!earlier) return { value: await value, asOf: null };
    // computed for the next caller: its failure is that caller's to see (get forgets a failed computation)
    value.catch(() => undefined);
    return { value: await earlier.value, asOf: earlier.at };
  }

  /** The newest finished, unexpired result of `key` that took `slowMs` or more to compute. */
  #latestReady(client: object, key: string, slowMs: number, now: number): Entry<T> | null {
    let best: Entry<T> | null = null;
    for (const e of this.#cacheOf(client).entries.values())
      if (
        e.key === key &&
        e.ms !== undefined &&
        e.ms >= slowMs &&
        now - e.at < this.#maxAgeMs &&
        (!best || e.at > best.at)
      )
        best = e;
    return best;
  }

  #cacheOf(client: object): Kept<T> {
    let kept = this.#byClient.get(client);
    if (!kept) this.#byClient.set(client, (kept = { entries: new Map(), weight: 0 }));
    return kept;
  }

  /** Forgets every result (benchmarks measure the uncached cost with it). */
  clear(): void {
    this.#byClient = new WeakMap();
  }
}

const globalCaches = () => {
  const g = globalThis as unknown as { verityCaches?: Map<string, FingerprintCache<unknown>> };
  return (g.verityCaches ??= new Map());
};

/** Forgets the results of every process cache. */
export function clearProcessCaches(): void {
  for (const c of globalCaches().values()) c.clear();
}

/** One cache per name for the whole process (module copies of a dev server's reloads share it). */
export function processCache<T>(name: string, opts?: FingerprintCacheOptions<T>): FingerprintCache<T> {
  const all = globalCaches();
  let c = all.get(name);
  if (!c) all.set(name, (c = new FingerprintCache<unknown>(opts as FingerprintCacheOptions<unknown>)));
  return c as FingerprintCache<T>;
}
