/**
 * A timestamp in UTC, minute precision (or `seconds`: for a time that is seconds old, such as a report's), with the
 * full ISO time on hover.
 */
export function DateTime({
  value,
  empty = "never",
  seconds = false,
}: {
  value: Date | null | undefined;
  empty?: string;
  seconds?: boolean;
}) {
  if (!value) return <span className="text-fg-subtle">{empty}</span>;
  const iso = value.toISOString();
  return (
    <time dateTime={iso} title={iso} className="whitespace-nowrap">
      {iso.slice(0, seconds ? 19 : 16).replace("T", " ")} UTC
    </time>
  );
}
