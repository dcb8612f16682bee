/** A timestamp in UTC, minute precision, with the full ISO time on hover. */
export function DateTime({ value, empty = "never" }: { value: Date | null | undefined; empty?: string }) {
  if (!value) return <span className="text-fg-subtle">{empty}</span>;
  const iso = value.toISOString();
  return (
    <time dateTime={iso} title={iso} className="whitespace-nowrap">
      {iso.slice(0, 16).replace("T", " ")} UTC
    </time>
  );
}
