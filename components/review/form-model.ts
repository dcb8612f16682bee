// The annotation form as a list of rows the keyboard cursor walks through, and the conversions between the form's
// state and the draft / review body. No React here.
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
  note: string;
};

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
  ["space or x", "toggle the flag or claim under the cursor"],
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
  ["enter", "type"],
  ["esc", "leave field"],
  ["d g c", "jump"],
  ["n", "note"],
  ["ctrl+enter", "submit"],
  ["s", "skip"],
];
