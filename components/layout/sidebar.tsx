import type { ReactNode } from "react";
import { NavLink } from "@/components/layout/nav-link.tsx";
import { ThemeToggle } from "@/components/layout/theme-toggle.tsx";

export type NavItem = { href: string; label: string };

export const NAV_ITEMS: NavItem[] = [
  { href: "/runs", label: "Runs" },
  { href: "/trajectories", label: "Trajectories" },
  { href: "/audit", label: "Audit" },
  { href: "/agreement", label: "Agreement" },
  { href: "/clusters", label: "Clusters" },
  { href: "/monitors", label: "Monitors" },
  { href: "/admin", label: "Admin" },
];

export function Sidebar({ items, theme, footer }: { items: NavItem[]; theme: "system" | "light" | "dark"; footer?: ReactNode }) {
  return (
    <aside className="flex w-48 shrink-0 flex-col border-r border-border bg-bg-subtle">
      <div className="px-3 py-3">
        <div className="text-[15px] font-semibold tracking-tight">Verity</div>
        <div className="text-[11px] text-fg-subtle">reward ledger console</div>
      </div>
      <nav aria-label="Main" className="flex-1 space-y-0.5 px-2">
        {items.map((i) => (
          <NavLink key={i.href} href={i.href} label={i.label} />
        ))}
      </nav>
      <div className="space-y-1 border-t border-border px-2 py-2">
        {footer}
        <ThemeToggle initial={theme} />
      </div>
    </aside>
  );
}
