import { Options } from "@/components/ui/field.tsx";

/**
 * The runs the two pickers start on: the ones asked for, else the first run and the first other one — never the same
 * run twice unless both were asked for.
 */
export function comparePair(runIds: readonly string[], a?: string, b?: string): { a: string; b: string } {
  const first = a ?? (b !== undefined ? runIds.find((id) => id !== b) : undefined) ?? runIds[0];
  return { a: first, b: b ?? runIds.find((id) => id !== first) ?? first };
}

/**
 * Picks two runs to overlay on the same charts. A plain GET form: it works before the page hydrates, and the result
 * is a link (/runs/compare?a=…&b=…).
 */
export function CompareForm({
  runIds,
  a,
  b,
  action = "/runs/compare",
}: {
  runIds: readonly string[];
  a?: string;
  b?: string;
  action?: string;
}) {
  if (runIds.length < 2) return null;
  const select = "rounded border border-border bg-bg px-1 py-0.5 text-[12px]";
  const pair = comparePair(runIds, a, b);
  return (
    <form
      method="get"
      action={action}
      className="flex flex-wrap items-center gap-1.5 text-[12px]"
      aria-label="Compare two runs"
    >
      <label className="flex items-center gap-1">
        <span className="text-fg-muted">Compare</span>
        <select name="a" defaultValue={pair.a} className={select} aria-label="First run">
          <Options values={runIds} />
        </select>
      </label>
      <label className="flex items-center gap-1">
        <span className="text-fg-muted">with</span>
        <select name="b" defaultValue={pair.b} className={select} aria-label="Second run">
          <Options values={runIds} />
        </select>
      </label>
      <button type="submit" className="rounded border border-border px-2 py-0.5 hover:bg-bg-muted">
        Compare
      </button>
    </form>
  );
}
