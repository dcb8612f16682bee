/** A short JSON value inline, as text. */
export function JsonInline({ value }: { value: unknown }) {
  const s = value === undefined ? "–" : JSON.stringify(value);
  return (
    <code className="rounded bg-bg-muted px-1 font-mono text-[12px]">{s.length > 120 ? `${s.slice(0, 117)}…` : s}</code>
  );
}
