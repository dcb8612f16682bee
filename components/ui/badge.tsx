import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn.ts";

const tones = {
  neutral: "bg-bg-muted text-fg-muted",
  good: "bg-good-bg text-good",
  warn: "bg-warn-bg text-warn",
  bad: "bg-bad-bg text-bad",
  accent: "bg-accent/15 text-accent",
} as const;

export function Badge({
  children,
  tone = "neutral",
  title,
}: {
  children: ReactNode;
  tone?: keyof typeof tones;
  title?: string;
}) {
  return (
    <span
      title={title}
      className={cn(
        "inline-flex items-center whitespace-nowrap rounded px-1.5 py-px text-[11px] font-medium",
        tones[tone],
      )}
    >
      {children}
    </span>
  );
}
