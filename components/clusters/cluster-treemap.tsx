"use client";
import { useRouter } from "next/navigation";
import { ResponsiveContainer, Treemap, type TreemapNode } from "recharts";

export type TreemapItem = { key: string; name: string; size: number; href: string; share: number };

type CellProps = {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  name?: string;
  share?: number;
  depth?: number;
  index?: number;
};

function Cell({ x = 0, y = 0, width = 0, height = 0, name, share, depth }: CellProps) {
  if (depth !== 1) return null;
  return (
    <g>
      <rect
        x={x}
        y={y}
        width={width}
        height={height}
        fill="var(--accent)"
        fillOpacity={0.18}
        stroke="var(--bg)"
        strokeWidth={2}
      />
      {width > 60 && height > 28 && (
        <text x={x + 6} y={y + 16} fontSize={11} fill="var(--fg)">
          {name && name.length * 6 > width - 12
            ? `${name.slice(0, Math.max(3, Math.floor((width - 12) / 6) - 1))}…`
            : name}
        </text>
      )}
      {width > 60 && height > 44 && share !== undefined && (
        <text x={x + 6} y={y + 31} fontSize={11} fill="var(--fg-muted)">
          {(share * 100).toFixed(1)}%
        </text>
      )}
    </g>
  );
}

/** The ranked clusters as a treemap (area = rollouts); a click drills into the cluster. */
export function ClusterTreemap({ items }: { items: TreemapItem[] }) {
  const router = useRouter();
  return (
    <div style={{ height: 260 }} data-chart="cluster-treemap">
      <ResponsiveContainer width="100%" height="100%">
        <Treemap
          data={items}
          dataKey="size"
          nameKey="name"
          isAnimationActive={false}
          content={<Cell />}
          onClick={(node: TreemapNode) => {
            // Computed nodes carry the data item's fields (href) alongside the layout.
            const href = node.href;
            if (typeof href === "string") router.push(href);
          }}
        />
      </ResponsiveContainer>
    </div>
  );
}
