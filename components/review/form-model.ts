// The annotation form as a list of rows the keyboard cursor walks through, and the conversions between the form's
// state and the draft / review body. No React here.
import { slotId, unansweredClaims, type ClaimSlots, type SlotKind } from "@/lib/review/claim-answers.ts";
import type { DraftBody } from "@/lib/review/schema.ts";
import { DIMENSIONS, GUARDRAIL_CODES, type Dimension } from "@/lib/verifier/codes.ts";

export type Row =
  | { kind: "dim"; dim: Dimension }
  | { kind: "flag"; code: string }
  | { kind: "write"; tool: string }
  | { kind: "mention"; key: string }
  | { kind: "forbidden"; code: string }
  | { kind: "note" };

export type Section = "dim" | "flag" | "claims" | "note";

export function buildRows(writeTools: string[], mentionKeys: string[], forbidden: string[]): Row[] {
  return [
    ...DIMENSIONS.map((dim) => ({ kind: "dim" as const, dim })),
    ...GUARDRAIL_CODES.map((code) => ({ kind: "flag" as const, code })),
    ...writeTools.map((tool) => ({ kind: "write" as const, tool })),
    ...mentionKeys.map((key) => ({ kind: "mention" as const, key })),
    ...forbidden.map((code) => ({ kind: "forbidden" as const, code })),
    { kind: "note" as const },
  ];
}

export function firstRowOf(rows: Row[], section: Section): number {
  const kinds: Record<Section, Row["kind"][]> = {
    dim: ["dim"],
    flag: ["flag"],
    claims: ["write", "mention", "forbidden"],
    note: ["note"],
  };
  const i = rows.findIndex((r) => kinds[section].includes(r.kind));
  return i < 0 ? 0 : i;
}

export function rowId(r: Row): string {
  switch (r.kind) {
    case "dim":
      return `dim-${r.dim}`;
    case "flag":
      return `flag-${r.code}`;
    case "write":
      return `write-${r.tool}`;
    case "mention":
      return `mention-${r.key}`;
    case "forbidden":
      return `forbidden-${r.code}`;
    case "note":
      return "note";
  }
}

export type MentionState = Record<string, { on: boolean; value: string }>;

export type FormState = {
  subscores: Record<Dimension, number | null>;
  flags: string[];
  claimed: string[];
  mentions: MentionState;
  forbidden: string[];
  /** Claim slots answered "no" (slotId); a slot neither claimed nor here is unanswered. */
  denied: string[];
  note: string;
};

export type ClaimRow = Extract<Row, { kind: SlotKind }>;
export type ClaimAnswer = "yes" | "no" | null;

export function isClaimRow(r: Row): r is ClaimRow {
  return r.kind === "write" || r.kind === "mention" || r.kind === "forbidden";
}

const slotName = (r: ClaimRow) => (r.kind === "write" ? r.tool : r.kind === "mention" ? r.key : r.code);

/** A claim row's answer: claimed ("yes"), answered "no", or not answered yet. */
export function answerOf(s: FormState, r: ClaimRow): ClaimAnswer {
  const yes =
    r.kind === "write"
      ? s.claimed.includes(r.tool)
      : r.kind === "mention"
        ? !!s.mentions[r.key]?.on
        : s.forbidden.includes(r.code);
  if (yes) return "yes";
  return s.denied.includes(slotId(r.kind, slotName(r))) ? "no" : null;
}

/** The state with a claim row answered. */
export function answer(s: FormState, r: ClaimRow, a: "yes" | "no"): FormState {
  const id = slotId(r.kind, slotName(r));
  const denied = a === "no" ? [...s.denied.filter((d) => d !== id), id] : s.denied.filter((d) => d !== id);
  const on = a === "yes";
  const set = (list: string[], x: string) => (on ? [...list.filter((y) => y !== x), x] : list.filter((y) => y !== x));
  if (r.kind === "write") return { ...s, denied, claimed: set(s.claimed, r.tool) };
  if (r.kind === "forbidden") return { ...s, denied, forbidden: set(s.forbidden, r.code) };
  return { ...s, denied, mentions: { ...s.mentions, [r.key]: { on, value: s.mentions[r.key]?.value ?? "" } } };
}

/** space / x on a claim row: an unanswered or "no" row becomes "yes", a "yes" row "no". */
export function toggleAnswer(s: FormState, r: ClaimRow): FormState {
  return answer(s, r, answerOf(s, r) === "yes" ? "no" : "yes");
}

/**
 * The claim slots of the form's rows left unanswered in `s`: the server's check (unansweredClaims) on the form's own
 * slots, so the form refuses exactly what the server would.
 */
export function unansweredOf(rows: Row[], s: FormState): { kind: SlotKind; name: string }[] {
  const body = draftFromState(s);
  return unansweredClaims(slotsOf(rows), body.claims, body.denied ?? []);
}

function slotsOf(rows: Row[]): ClaimSlots {
  const claim = rows.filter(isClaimRow);
  return {
    writeTools: claim.flatMap((r) => (r.kind === "write" ? [r.tool] : [])),
    mentionKeys: claim.flatMap((r) => (r.kind === "mention" ? [r.key] : [])),
    forbidden: claim.flatMap((r) => (r.kind === "forbidden" ? [r.code] : [])),
  };
}

export function stateFromDraft(d: DraftBody): FormState {
  return {
    subscores: { ...d.subscores },
    flags: [...d.guardrails],
    claimed: [...d.claims.claimed_writes],
    mentions: Object.fromEntries(
      d.claims.mentioned.map((m) => [
        m.key,
        { on: true, value: m.value === undefined || m.value === null ? "" : String(m.value) },
      ]),
    ),
    forbidden: [...d.claims.forbidden_hits],
    denied: [...(d.denied ?? [])],
    note: d.note,
  };
}

const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** A typed mention value: a number when it reads as one (mention equality compares numbers within 1%). */
function mentionValue(text: string): string | number | undefined {
  const t = text.trim();
  if (!t) return undefined;
  return NUMERIC.test(t) ? Number(t) : t;
}

export function draftFromState(s: FormState): DraftBody {
  return {
    subscores: { ...s.subscores },
    guardrails: GUARDRAIL_CODES.filter((c) => s.flags.includes(c)),
    claims: {
      claimed_writes: [...s.claimed].sort(),
      mentioned: Object.entries(s.mentions)
        .filter(([, m]) => m.on)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, m]) => {
          const value = mentionValue(m.value);
          return value === undefined ? { key } : { key, value };
        }),
      forbidden_hits: [...s.forbidden].sort(),
    },
    note: s.note,
    denied: [...s.denied].sort(),
  };
}

export function missingDimensions(s: FormState): Dimension[] {
  return DIMENSIONS.filter((d) => s.subscores[d] === null || s.subscores[d] === undefined);
}

export const toggle = (list: string[], x: string) => (list.includes(x) ? list.filter((y) => y !== x) : [...list, x]);

/** The keys of the annotation form, as the ? list shows them (the rollout pane's are in reading-keys.ts). */
export const KEYS: [string, string][] = [
  ["↑ ↓ or k j", "move the cursor"],
  ["0 1 2 3 4", "score the sub-score under the cursor 0 · 0.25 · 0.5 · 0.75 · 1"],
  ["space or x", "toggle the flag under the cursor; answer the claim under it yes, then no"],
  ["1 / 0", "answer the claim under the cursor yes / no (every claim needs an answer)"],
  ["enter", "type a mention's value / the note"],
  ["esc", "leave a text field"],
  ["d g c", "jump to sub-scores · guardrails · claims"],
  ["n", "write the note"],
  ["ctrl+enter", "submit"],
  ["s", "skip (give the item back)"],
];

/** The legend kept in view under the form: each key with a word or two. */
export const LEGEND: [string, string][] = [
  ["j k", "move"],
  ["0–4", "score"],
  ["x", "toggle"],
  ["1 0", "claim yes / no"],
  ["enter", "type"],
  ["esc", "leave field"],
  ["d g c", "jump"],
  ["n", "note"],
  ["ctrl+enter", "submit"],
  ["s", "skip"],
];
