import type { AgreementItem } from "@/lib/agreement/data.ts";
import type { Claims as StatClaims } from "@/lib/stats/extraction-accuracy.ts";

// The populations the report's figures are computed over, shared with the item lists behind them, so the count
// behind a link is the figure's n by construction.

export type PrimaryPair = {
  i: AgreementItem;
  human: AgreementItem["reviews"][number];
  ledger: AgreementItem["ledger"] & { reward: number };
};

/** Narrows to the items where the ledger or a human flagged the guardrail, when the filter names one. */
export function applyGuardrailFilter(items: AgreementItem[], guardrail?: string): AgreementItem[] {
  if (!guardrail) return items;
  return items.filter(
    (i) => i.ledger.guardrails.includes(guardrail as never) || i.reviews.some((r) => r.guardrails.includes(guardrail)),
  );
}

/** The primary (first) review of each item with a ledger reward: an item never counts twice against the ledger. */
export function primaryPairs(items: AgreementItem[]): PrimaryPair[] {
  return items
    .filter((i) => i.reviews.length > 0 && i.ledger.reward !== null)
    .map((i) => ({ i, human: i.reviews[0], ledger: i.ledger as PrimaryPair["ledger"] }));
}

/** The day (UTC) a review was submitted: the trend's x axis. */
export function reviewDay(p: PrimaryPair): string {
  return p.human.createdAt.toISOString().slice(0, 10);
}

/** Items with two or more distinct reviewers: the between-annotator population. */
export function overlapItems(items: AgreementItem[]): AgreementItem[] {
  return items.filter((i) => new Set(i.reviews.map((r) => r.reviewerId)).size > 1);
}

function toStatClaims(
  c: {
    claimed_writes?: readonly string[];
    mentioned?: readonly { key: string; value?: unknown }[];
    forbidden_hits?: readonly string[];
  } | null,
): StatClaims {
  return {
    claimed_writes: c?.claimed_writes ?? [],
    mentioned: (c?.mentioned ?? []).map((m) => ({
      key: m.key,
      ...(m.value === undefined ? {} : { value: m.value as string | number | boolean | null }),
    })),
    forbidden_hits: c?.forbidden_hits ?? [],
  };
}

/**
 * The ledger's claims (what the extractor produced) against the claims the primary annotator labelled, for pairs
 * whose ledger entry has claims, with the slot universe: every write tool, mention key and forbidden code either
 * side used in any pair. Every pair is compared on every slot of the universe.
 */
export function extractionPairs(pairs: PrimaryPair[]) {
  const writeTools = new Set<string>();
  const mentionKeys = new Set<string>();
  const forbidden = new Set<string>();
  const list = pairs
    .filter((p) => p.ledger.claims)
    .map((p) => {
      const extracted = toStatClaims(p.ledger.claims);
      const human = toStatClaims(p.human.claims);
      for (const c of [extracted, human]) {
        c.claimed_writes.forEach((t) => writeTools.add(t));
        c.mentioned.forEach((m) => mentionKeys.add(m.key));
        c.forbidden_hits.forEach((x) => forbidden.add(x));
      }
      return { p, extracted, human };
    });
  return {
    pairs: list,
    universe: {
      writeTools: [...writeTools].sort(),
      mentionKeys: [...mentionKeys].sort(),
      forbiddenCodes: [...forbidden].sort(),
    },
  };
}
