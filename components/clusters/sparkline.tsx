import { cn } from "@/components/ui/cn.ts";

/**
 * A cluster's share per step bin as a tiny line (scaled to its own maximum: the shape, not the level, is the
 * point; the numbers sit next to it). Bins without rollouts leave a gap.
 */
export function Sparkline({
  shares,
  label,
  className,
  width = 96,
  height = 20,
}: {
  shares: readonly (number | null)[];
  label: string;
  className?: string;
  width?: number;
  height?: number;
}) {
  const max = Math.max(0, ...shares.map((s) => s ?? 0));
  const n = shares.length;
  const x = (i: number) => (n <= 1 ? width / 2 : (i / (n - 1)) * (width - 2) + 1);
  const y = (v: number) => height - 1 - (max > 0 ? (v / max) * (height - 2) : 0);
  const segments: string[] = [];
  let current: string[] = [];
  shares.forEach((s, i) => {
    if (s === null) {
      if (current.length) segments.push(current.join(" "));
      current = [];
    } else current.push(`${x(i).toFixed(1)},${y(s).toFixed(1)}`);
  });
  if (current.length) segments.push(current.join(" "));
  return (
    <svg
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
      className={cn("inline-block align-middle text-accent", className)}
    >
      <title>{label}</title>
      <line x1={0} x2={width} y1={height - 0.5} y2={height - 0.5} stroke="var(--border)" />
      {segments.map((pts, i) =>
        pts.includes(" ") ? (
          <polyline key={i} points={pts} fill="none" stroke="currentColor" strokeWidth={1.5} />
        ) : (
          <circle key={i} cx={pts.split(",")[0]} cy={pts.split(",")[1]} r={1.5} fill="currentColor" />
        ),
      )}
    </svg>
  );
}
