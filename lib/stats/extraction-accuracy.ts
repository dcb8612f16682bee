// Extraction accuracy: the claims extractor against human-labelled claims, slot by slot (watched with an alarm
// below 0.85). THE definition of extraction accuracy: the agreement report (page, API, CLI), the monitors' audit series
// and the extraction alarm all call extractionAccuracy, so one item's slots, and the pooled figure over a set of
// items, are the same wherever they are shown.
// Each (extracted, human) pair is broken into yes/no slots over ITS OWN CASE's slots — the write tools of the
// rollout's registry, the case spec's must-mention keys and forbidden codes, i.e. what the annotator was shown —
// never over slots that other items in the same selection happen to use, so an item counts the same whatever else
// a filter selects. A slot is correct when both sides agree on it. Slots per pair:
//   write:<tool>      for each write tool of the case, plus any tool either side claimed — "claimed or not";
//                     a claim outside the case is therefore a slot too, and wrong unless both made it.
//   mention:<key>     for each must-mention key of the case, plus any key either side mentioned: correct when both
//                     mention it or neither does, and, when both give a value, the values are equal
//                     (see mentionValuesEqual).
//   forbidden:<code>  for each forbidden code of the case, plus any code either side hit.
// The pooled accuracy is Σ correct slots / Σ slots over the pairs, so it is additive: pooling two disjoint sets of
// items gives the sums of their counts.

import { wilson, Z_95, type IntervalEstimate } from "@/lib/stats/intervals.ts";

export type MentionValue = string | number | boolean | null;
export type Claims = {
  claimed_writes: readonly string[];
  mentioned: readonly { key: string; value?: MentionValue }[];
  forbidden_hits: readonly string[];
};
/**
 * Claims as stored (a JSON object whose lists may be absent, e.g. `{}`), each list defaulting to empty, so a stored
 * value without them counts as "claimed nothing" everywhere instead of failing the computation.
 */
export function toStatClaims(
  c: {
    claimed_writes?: readonly string[];
    mentioned?: readonly { key: string; value?: unknown }[];
    forbidden_hits?: readonly string[];
  } | null,
): Claims {
  return {
    claimed_writes: c?.claimed_writes ?? [],
    mentioned: (c?.mentioned ?? []).map((m) => ({
      key: m.key,
      ...(m.value === undefined ? {} : { value: m.value as MentionValue }),
    })),
    forbidden_hits: c?.forbidden_hits ?? [],
  };
}

/** The slots of one item's case: what its annotator was shown. */
export type CaseSlots = {
  writeTools: readonly string[];
  mentionKeys?: readonly string[];
  forbiddenCodes?: readonly string[];
};
/** One item: the ledger's (extracted) claims, the primary human label, and the slots of the item's own case. */
export type ExtractionPair = { extracted: Claims; human: Claims; slots: CaseSlots };

/** The alarm threshold for extraction accuracy (domain.md). */
export const EXTRACTION_ACCURACY_THRESHOLD = 0.85;
const RELATIVE_TOLERANCE = 0.01;
const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export type SlotKind = "write" | "mention" | "forbidden";

export type SlotAccuracy = {
  /** "<kind>:<name>", e.g. "write:refund_order". */
  slot: string;
  kind: SlotKind;
  name: string;
  correct: number;
  n: number;
  /** correct / n with its Wilson interval. Range [0, 1]. */
  accuracy: IntervalEstimate;
  belowThreshold: boolean;
};

export type ExtractionAccuracy = {
  /** Sorted by kind (write, mention, forbidden), then name. */
  slots: SlotAccuracy[];
  /** Pooled over all slots of all pairs; null when there are no slots. */
  overall: { correct: number; n: number; accuracy: IntervalEstimate } | null;
  /** Overall point estimate < threshold (false when there is no estimate). */
  belowThreshold: boolean;
  /** The Wilson upper bound is below the threshold too: below beyond sampling doubt. */
  clearlyBelowThreshold: boolean;
  threshold: number;
};

function asNumber(v: MentionValue): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string" && NUMERIC.test(v.trim())) return Number(v.trim());
  return null;
}

/**
 * Mention value equality, with the human label as the reference: numbers (or numeric strings) equal when
 * |extracted − human| ≤ 1% of |human| (a human 0 needs an exact 0); strings equal after NFKC, lower-casing and
 * removing all whitespace ("59.99 EUR" = "59.99eur", and Chinese text, which has no spaces, compares as written);
 * anything else (booleans) by strict equality.
 */
export function mentionValuesEqual(extracted: MentionValue, human: MentionValue): boolean {
  const en = asNumber(extracted);
  const hn = asNumber(human);
  if (en !== null && hn !== null) return Math.abs(en - hn) <= RELATIVE_TOLERANCE * Math.abs(hn) + 1e-12;
  if (typeof extracted === "string" && typeof human === "string") {
    const norm = (s: string) => s.normalize("NFKC").toLowerCase().replace(/\s+/gu, "");
    return norm(extracted) === norm(human);
  }
  return extracted === human;
}

/** The value of a key's first mention that has one (null and undefined are "no value"). */
function mentionMap(claims: Claims): Map<string, MentionValue | undefined> {
  const map = new Map<string, MentionValue | undefined>();
  for (const { key, value } of claims.mentioned) {
    const has = value !== undefined && value !== null;
    if (!map.has(key) || (map.get(key) === undefined && has)) map.set(key, has ? value : undefined);
  }
  return map;
}

const NO_MENTIONS: ReadonlyMap<string, MentionValue | undefined> = new Map();

/**
 * Calls `record` once per slot of one pair (see the file header), with whether both sides agree on it. A pair's lists
 * hold a few names each, so they are searched as arrays rather than made into sets (10,000 pairs: most of the
 * report's extraction figures were those sets).
 */
function forEachSlot(
  { extracted, human, slots: own }: ExtractionPair,
  record: (kind: SlotKind, name: string, ok: boolean) => void,
): void {
  const { writeTools, mentionKeys = [], forbiddenCodes = [] } = own;
  eachOnce([writeTools, extracted.claimed_writes, human.claimed_writes], (tool) =>
    record("write", tool, extracted.claimed_writes.includes(tool) === human.claimed_writes.includes(tool)),
  );

  const em = extracted.mentioned.length ? mentionMap(extracted) : NO_MENTIONS;
  const hm = human.mentioned.length ? mentionMap(human) : NO_MENTIONS;
  eachOnce([mentionKeys, [...em.keys()], [...hm.keys()]], (key) => {
    let ok = em.has(key) === hm.has(key);
    const ev = em.get(key);
    const hv = hm.get(key);
    if (ok && ev !== undefined && hv !== undefined) ok = mentionValuesEqual(ev, hv);
    record("mention", key, ok);
  });

  eachOnce([forbiddenCodes, extracted.forbidden_hits, human.forbidden_hits], (code) =>
    record("forbidden", code, extracted.forbidden_hits.includes(code) === human.forbidden_hits.includes(code)),
  );
}

/** `visit` for each distinct name of the lists, in order of first appearance (a Set of their union would do the same). */
function eachOnce(lists: readonly (readonly string[])[], visit: (name: string) => void): void {
  const seen: string[] = [];
  for (const list of lists)
    for (const name of list) {
      if (seen.includes(name)) continue;
      seen.push(name);
      visit(name);
    }
}

/**
 * One pair's correct and compared slots: its share of the pooled counts of extractionAccuracy, which are additive
 * over pairs, so a pooled figure can be summed pair by pair without keeping the pairs.
 */
export function pairSlotCounts(pair: ExtractionPair): { correct: number; n: number } {
  let correct = 0;
  let n = 0;
  forEachSlot(pair, (_kind, _name, ok) => {
    n++;
    if (ok) correct++;
  });
  return { correct, n };
}

/**
 * Per-slot and overall extraction accuracy = correct slots / slots, each pair over its own case's slots (see the file
 * header), each with a Wilson interval (z default 1.96), and `belowThreshold` when the overall accuracy is under
 * `threshold` (default 0.85). Range [0, 1].
 */
export function extractionAccuracy(
  pairs: readonly ExtractionPair[],
  options: { threshold?: number; z?: number } = {},
): ExtractionAccuracy {
  const { threshold = EXTRACTION_ACCURACY_THRESHOLD, z = Z_95 } = options;
  type Tally = { kind: SlotKind; name: string; correct: number; n: number };
  // by kind, then name: a slot's "<kind>:<name>" is spelled once per slot, not once per pair
  const tally: Record<SlotKind, Map<string, Tally>> = { write: new Map(), mention: new Map(), forbidden: new Map() };
  const record = (kind: SlotKind, name: string, ok: boolean) => {
    const byName = tally[kind];
    let t = byName.get(name);
    if (!t) byName.set(name, (t = { kind, name, correct: 0, n: 0 }));
    t.n++;
    if (ok) t.correct++;
  };
  for (const pair of pairs) forEachSlot(pair, record);

  const order: Record<SlotKind, number> = { write: 0, mention: 1, forbidden: 2 };
  const slots = [...tally.write.values(), ...tally.mention.values(), ...tally.forbidden.values()]
    .map((t): SlotAccuracy => {
      const accuracy = wilson(t.correct, t.n, z)!;
      return { slot: `${t.kind}:${t.name}`, ...t, accuracy, belowThreshold: accuracy.estimate < threshold };
    })
    .sort((a, b) => order[a.kind] - order[b.kind] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  let correct = 0;
  let n = 0;
  for (const s of slots) {
    correct += s.correct;
    n += s.n;
  }
  const accuracy = wilson(correct, n, z);
  return {
    slots,
    overall: accuracy && { correct, n, accuracy },
    belowThreshold: accuracy !== null && accuracy.estimate < threshold,
    clearlyBelowThreshold: accuracy !== null && accuracy.upper < threshold,
    threshold,
  };
}
