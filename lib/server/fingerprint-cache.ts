// The last few results of an expensive read, per database client, keyed by what was asked and by a fingerprint of
// what the result is computed from. A caller supplies the fingerprint (a cheap summary that any write of the inputs
// changes, read in the same request); an unchanged fingerprint means an unchanged result. Concurrent callers of one
// key share the computation while it runs; a failed computation is forgotten; entries also expire after a few
// minutes, whatever happens. In-process: each console process keeps its own.

export type FingerprintCacheOptions = { maxEntries?: number; maxAgeMs?: number };

type Entry<T> = { at: number; value: Promise<T> };

export class FingerprintCache<T> {
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;
  // One map per database client, so two databases (a test's scratch database, a replica) never share results.
  #byClient = new WeakMap<object, Map<string, Entry<T>>>();

  constructor(opts: FingerprintCacheOptions = {}) {
    this.#maxEntries = opts.maxEntries ?? 16;
    this.#maxAgeMs = opts.maxAgeMs ?? 5 * 60_000;
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
    let cache = this.#byClient.get(client);
    if (!cache) this.#byClient.set(client, (cache = new Map()));
    const k = JSON.stringify([key, fingerprint]);
    const hit = cache.get(k);
    if (hit && now - hit.at < this.#maxAgeMs) {
      cache.delete(k);
      cache.set(k, hit); // most recently used last
      return hit.value;
    }
    const value = compute();
    cache.set(k, { at: now, value });
    value.catch(() => {
      if (cache.get(k)?.value === value) cache.delete(k);
    });
    while (cache.size > this.#maxEntries) cache.delete(cache.keys().next().value!);
    return value;
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
export function processCache<T>(name: string, opts?: FingerprintCacheOptions): FingerprintCache<T> {
  const all = globalCaches();
  let c = all.get(name);
  if (!c) all.set(name, (c = new FingerprintCache<unknown>(opts)));
  return c as FingerprintCache<T>;
}
