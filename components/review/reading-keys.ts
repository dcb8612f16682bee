// The keys that read a rollout pane (annotation and adjudication pages alike) and those of the key list itself.
// One table: the pane's handler, the legend and the ? list all read it.

export type KeyRow = [keys: string, what: string];
export type KeyGroup = { title: string; keys: KeyRow[] };

export const READING_KEYS: KeyRow[] = [
  ["J or shift+↓", "scroll the rollout down"],
  ["K or shift+↑", "scroll the rollout up"],
  ["]", "next step"],
  ["[", "previous step"],
  ["i", "open or close every step's input"],
  ["e", "open or close the environment snapshot"],
  ["v", "open or close the verifier spec"],
];

export const HELP_KEYS: KeyRow[] = [
  ["?", "show or hide this list"],
  ["esc", "close this list"],
];

/** The short legend kept in view: the key and a word or two; ? lists them in full (key-help.tsx). */
export const READING_LEGEND: KeyRow[] = [
  ["J K", "scroll rollout"],
  ["[ ]", "step"],
  ["i e v", "input · snapshot · spec"],
];

/** Where each pane section's toggle key points (data-section on the <details> of components/trajectory). */
export const SECTION_KEYS: Record<string, "input" | "snapshot" | "spec"> = { i: "input", e: "snapshot", v: "spec" };

/** Keys never fire while the user types in a field. */
export const isTyping = (t: EventTarget | null) =>
  t instanceof HTMLElement &&
  (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
