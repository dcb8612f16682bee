/** Pretty-printed JSON as text (React escapes it: nothing user-written is ever rendered as HTML). */
export function JsonBlock({ value, className }: { value: unknown; className?: string }) {
  return (
    <pre className={`overflow-x-auto rounded bg-bg-subtle p-2 font-mono text-[12px] leading-snug ${className ?? ""}`}>
      {JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v), 2)}
    </pre>
  );
}
