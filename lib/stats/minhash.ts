// Near-duplicate grouping of final replies, for clusters: "Your refund has been arranged." and "your refund has been
// arranged!!" are one reply. Texts are normalised, cut into character n-grams (which work for Chinese, where there
// are no spaces between words), summarised by MinHash signatures, and candidate pairs from LSH banding are
// confirmed by their exact Jaccard similarity. Deterministic: the hash family comes from a seed.

import { mulberry32, randomUint32 } from "@/lib/stats/prng.ts";

export type ShingleOptions = {
  /** n of the n-grams; default 3. */
  size?: number;
  /** "char" n-grams (default; any script) or "word" n-grams (space-separated scripts only). */
  unit?: "char" | "word";
};

/**
 * NFKC (full-width Ｒｅｆｕｎｄ → Refund, full-width punctuation → ASCII), lower case, punctuation and symbols →
 * space, every decimal digit → "#" (order numbers and amounts differ between otherwise equal replies), runs of
 * whitespace → one space, trimmed.
 */
export function normalizeText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\p{Nd}/gu, "#")
    .replace(/\s+/gu, " ")
    .trim();
}

/**
 * The set of n-grams of the normalised text. A text shorter than n (but not empty) is one shingle; an empty text
 * has none. Characters are code points, so a character outside the BMP is one character.
 */
export function shingles(text: string, options: ShingleOptions = {}): Set<string> {
  return shinglesOfNormalized(normalizeText(text), options);
}

function shinglesOfNormalized(norm: string, { size = 3, unit = "char" }: ShingleOptions): Set<string> {
  if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`shingle size must be an integer ≥ 1, got ${size}`);
  const out = new Set<string>();
  if (norm === "") return out;
  const tokens = unit === "char" ? Array.from(norm) : norm.split(" ");
  const sep = unit === "char" ? "" : " ";
  if (tokens.length <= size) return out.add(tokens.join(sep));
  for (let i = 0; i + size <= tokens.length; i++) out.add(tokens.slice(i, i + size).join(sep));
  return out;
}

/** Jaccard similarity |A ∩ B| / |A ∪ B|. Range [0, 1]. null when both sets are empty. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number | null {
  if (a.size === 0 && b.size === 0) return null;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const s of small) if (large.has(s)) shared++;
  return shared / (a.size + b.size - shared);
}

/** FNV-1a over UTF-16 code units: a string → 32-bit integer. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** MurmurHash3's 32-bit finaliser: a bijection that spreads every input bit over the output. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export type MinHasher = { numHashes: number; signature: (shingles: Iterable<string>) => Uint32Array };

/**
 * A MinHash family of `numHashes` (default 128) functions h_i(x) = fmix32(a_i·fnv1a(x) + b_i) with a_i odd and
 * a_i, b_i drawn from mulberry32(seed). signature[i] = min over the shingles of h_i; the share of equal positions
 * of two signatures estimates their Jaccard similarity with standard error ≈ sqrt(J(1 − J)/numHashes).
 */
export function createMinHasher(options: { numHashes?: number; seed?: number } = {}): MinHasher {
  const { numHashes = 128, seed = 1 } = options;
  if (!(Number.isInteger(numHashes) && numHashes >= 1))
    throw new RangeError(`numHashes must be an integer ≥ 1, got ${numHashes}`);
  const rng = mulberry32(seed);
  const a = new Uint32Array(numHashes);
  const b = new Uint32Array(numHashes);
  for (let i = 0; i < numHashes; i++) {
    a[i] = randomUint32(rng) | 1;
    b[i] = randomUint32(rng);
  }
  return {
    numHashes,
    signature(items) {
      const sig = new Uint32Array(numHashes).fill(0xffffffff);
      for (const item of items) {
        const x = fnv1a(item);
        for (let i = 0; i < numHashes; i++) {
          const h = fmix32((Math.imul(a[i], x) + b[i]) | 0);
          if (h < sig[i]) sig[i] = h;
        }
      }
      return sig;
    },
  };
}

/** Share of equal positions of two signatures of the same family: an estimate of Jaccard. Range [0, 1]. */
export function estimateJaccard(a: Uint32Array, b: Uint32Array): number {
  if (a.length !== b.length || a.length === 0) throw new RangeError("signatures must come from the same family");
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same / a.length;
}

export type NearDuplicateOptions = ShingleOptions & {
  /**
   * Minimum Jaccard similarity of shingle sets for two texts to be near-duplicates; default 0.7. Calibrated on
   * character 3-grams: one inserted character in a short Chinese reply ("请注意查收" / "请您注意查收") gives 0.71 and a
   * reworded clause in English ("will arrive in" / "should arrive within") 0.74, while one changed action word
   * ("退款" refund / "换货" exchange, in the same sentence) gives 0.56.
   */
  threshold?: number;
  numHashes?: number;
  /** LSH bands (must divide numHashes); default: the most rows per band whose S-curve midpoint (1/b)^(1/r) is at
   * least 0.15 below the threshold, so a pair at the threshold is missed with negligible probability. */
  bands?: number;
  seed?: number;
};

export type NearDuplicateGroup = {
  /** The original text of the group's most frequent normalised variant (first occurrence on a tie). */
  representative: string;
  representativeIndex: number;
  /** Indices into the input, ascending. */
  indices: number[];
  count: number;
};

function defaultBands(numHashes: number, threshold: number): number {
  let best = numHashes; // r = 1: always finds every pair that shares a min-hash
  for (let r = 1; r <= numHashes; r++) {
    if (numHashes % r !== 0) continue;
    if (Math.pow(1 / (numHashes / r), 1 / r) <= threshold - 0.15) best = numHashes / r;
  }
  return best;
}

/**
 * Groups texts whose normalised shingle sets have Jaccard ≥ threshold (single linkage: A~B and B~C put A, B, C in
 * one group even if A and C are further apart). Identical normalised texts are merged first; MinHash + LSH
 * banding proposes candidate pairs and each is confirmed with the exact Jaccard, so no pair below the threshold is
 * merged, and a pair at or above it is missed only with the tiny LSH miss probability. Empty texts form one group.
 * Every input index is in exactly one group; groups are ordered by count (descending), then first index.
 */
export function groupNearDuplicates(
  texts: readonly string[],
  options: NearDuplicateOptions = {},
): NearDuplicateGroup[] {
  const { threshold = 0.7, numHashes = 128, seed = 1, ...shingleOptions } = options;
  if (!(threshold > 0 && threshold <= 1)) throw new RangeError(`threshold must be in (0, 1], got ${threshold}`);
  const bands = options.bands ?? defaultBands(numHashes, threshold);
  if (!(Number.isInteger(bands) && bands >= 1 && numHashes % bands === 0))
    throw new RangeError(`bands must divide numHashes, got ${bands}`);

  // Distinct normalised texts, with the input indices of each.
  const variantOf = new Map<string, number>();
  const variants: { norm: string; indices: number[] }[] = [];
  texts.forEach((text, i) => {
    const norm = normalizeText(text);
    let v = variantOf.get(norm);
    if (v === undefined) {
      v = variants.length;
      variantOf.set(norm, v);
      variants.push({ norm, indices: [] });
    }
    variants[v].indices.push(i);
  });

  const sets = variants.map((v) => shinglesOfNormalized(v.norm, shingleOptions));
  const hasher = createMinHasher({ numHashes, seed });
  const parent = variants.map((_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]];
    return x;
  };
  const rows = numHashes / bands;
  const buckets = new Map<string, number[]>();
  sets.forEach((set, v) => {
    if (set.size === 0) return;
    const sig = hasher.signature(set);
    for (let band = 0; band < bands; band++) {
      const key = `${band}:${sig.subarray(band * rows, (band + 1) * rows).join(",")}`;
      const bucket = buckets.get(key);
      if (bucket) bucket.push(v);
      else buckets.set(key, [v]);
    }
  });
  const checked = new Set<string>();
  for (const bucket of buckets.values()) {
    for (let i = 1; i < bucket.length; i++) {
      for (let j = 0; j < i; j++) {
        const [p, q] = [bucket[j], bucket[i]];
        if (find(p) === find(q) || checked.has(`${p},${q}`)) continue;
        checked.add(`${p},${q}`);
        if ((jaccard(sets[p], sets[q]) ?? 0) >= threshold) parent[find(q)] = find(p);
      }
    }
  }

  const byRoot = new Map<number, number[]>();
  variants.forEach((_, v) => {
    const root = find(v);
    const members = byRoot.get(root);
    if (members) members.push(v);
    else byRoot.set(root, [v]);
  });
  const groups = [...byRoot.values()].map((members): NearDuplicateGroup => {
    // Most frequent variant; variants are numbered by first occurrence, so the lower number wins a tie.
    const top = members.reduce((best, v) => (variants[v].indices.length > variants[best].indices.length ? v : best));
    const indices = members.flatMap((v) => variants[v].indices).sort((x, y) => x - y);
    const representativeIndex = variants[top].indices[0];
    return { representative: texts[representativeIndex], representativeIndex, indices, count: indices.length };
  });
  return groups.sort((g, h) => h.count - g.count || g.indices[0] - h.indices[0]);
}
