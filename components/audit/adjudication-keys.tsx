import { KeyHelp } from "@/components/review/key-help.tsx";
import { HELP_KEYS, READING_KEYS, READING_LEGEND, type KeyGroup } from "@/components/review/reading-keys.ts";
import { CAUSE_LABELS, DISAGREEMENT_CAUSES } from "@/lib/agreement/causes.ts";

const GROUPS: KeyGroup[] = [
  {
    title: "Verdict",
    keys: [
      ...DISAGREEMENT_CAUSES.map((c, i): [string, string] => [
        String(i + 1),
        `cause: ${CAUSE_LABELS[c].toLowerCase()}`,
      ]),
      ["ctrl+enter", "record the verdict"],
    ],
  },
  { title: "Reading the rollout", keys: READING_KEYS },
  { title: "This list", keys: HELP_KEYS },
];

/** The adjudication page's legend: the annotation page's reading keys, the verdict keys, and ? for the full list. */
export function AdjudicationKeys() {
  return (
    <section aria-label="Keys" className="border-t border-border bg-bg-subtle px-3 py-1.5 text-[12px]">
      <ul className="flex flex-wrap items-center gap-x-3 gap-y-1">
        {[["1–5", "cause"] as [string, string], ["ctrl+enter", "record"] as [string, string], ...READING_LEGEND].map(
          ([k, what]) => (
            <li key={k} className="flex items-center gap-1">
              <kbd className="rounded border border-border bg-bg px-1 font-mono text-[11px]">{k}</kbd>
              <span className="text-fg-muted">{what}</span>
            </li>
          ),
        )}
        <li className="ml-auto">
          <KeyHelp groups={GROUPS} />
        </li>
      </ul>
    </section>
  );
}
