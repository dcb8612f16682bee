// Every claim slot of the annotation form needs an answer: the reply claims it ("yes", in the review's claims) or it
// does not ("no", listed in `denied`). Left unanswered, a slot would read as "no" and count against the ledger's
// extraction on the reveal and in extraction accuracy, so a review with an unanswered slot is refused, by the form
// and again by the server, naming the slots. Pure; the form and the submit action share it.
import type { Claims } from "@/lib/verifier/schema.ts";

/** The claim slots an item's form asks about: its rollout's write tools, its spec's must-mention keys and forbidden codes. */
export type ClaimSlots = {
  writeTools: readonly string[];
  mentionKeys: readonly string[];
  forbidden: readonly string[];
};

export type SlotKind = "write" | "mention" | "forbidden";

/** A slot's id in `denied`: its kind and name, "write:finance.issue_refund". */
export function slotId(kind: SlotKind, name: string): string {
  return `${kind}:${name}`;
}

const KIND_WORD: Record<SlotKind, string> = { write: "write", mention: "mention", forbidden: "forbidden expression" };

/** The slots neither claimed nor denied, in form order, as { kind, name }. */
export function unansweredClaims(
  slots: ClaimSlots,
  claims: Claims,
  denied: readonly string[],
): { kind: SlotKind; name: string }[] {
  const no = new Set(denied);
  const mentioned = new Set(claims.mentioned.map((m) => m.key));
  const rows: [SlotKind, readonly string[], (name: string) => boolean][] = [
    ["write", slots.writeTools, (t) => claims.claimed_writes.includes(t)],
    ["mention", slots.mentionKeys, (k) => mentioned.has(k)],
    ["forbidden", slots.forbidden, (c) => claims.forbidden_hits.includes(c)],
  ];
  return rows.flatMap(([kind, names, claimed]) =>
    names.filter((name) => !claimed(name) && !no.has(slotId(kind, name))).map((name) => ({ kind, name })),
  );
}

/** The refusal: one sentence naming every unanswered slot. */
export function unansweredMessage(missing: readonly { kind: SlotKind; name: string }[]): string {
  return `Answer every claim first, yes or no (unanswered: ${missing.map((m) => `${m.name} (${KIND_WORD[m.kind]})`).join(", ")}).`;
}
