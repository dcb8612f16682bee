import type { ReactNode } from "react";
import { NavLink } from "@/components/layout/nav-link.tsx";
import { ThemeToggle } from "@/components/layout/theme-toggle.tsx";
import { can, type Action, type Role } from "@/lib/auth/policy.ts";

/** `action` is what the page's guard asks the policy, so the sidebar shows exactly the pages a role may open. */
export type NavItem = { href: string; label: string; action: Action; carriesRun?: boolean };

export const NAV_ITEMS: NavItem[] = [
  { href: "/queue", label: "Queue", action: "audit.review" },
  { href: "/runs", label: "Runs", action: "runs.read" },
  { href: "/trajectories", label: "Trajectories", action: "ledger.read" },
  { href: "/audit", label: "Audit", action: "audit.read" },
  { href: "/agreement", label: "Agreement", action: "ledger.read" },
  { href: "/clusters", label: "Clusters", action: "ledger.read", carriesRun: true },
  { href: "/monitors", label: "Monitors", action: "runs.read" },
  { href: "/rewards", label: "Rewards", action: "rewards.manage" },
  { href: "/admin/configs", label: "Configs", action: "configs.read" },
  { href: "/admin/activity-log", label: "Activity log", action: "activitylog.read" },
  { href: "/admin", label: "Admin", action: "users.manage" },
];

export function navItemsFor(role: Role): NavItem[] {
  return NAV_ITEMS.filter((i) => can(role, i.action));
}

export function Sidebar({
  items,
  theme,
  footer,
}: {
  items: NavItem[];
  theme: "system" | "light" | "dark";
  footer?: ReactNode;
}) {
  return (
    <aside className="flex w-48 shrink-0 flex-col border-r border-border bg-bg-subtle">
      <div className="px-3 py-3">
        <div className="text-[15px] font-semibold tracking-tight">Verity</div>
        <div className="text-[11px] text-fg-subtle">reward ledger console</div>
      </div>
      <nav aria-label="Main" className="flex-1 space-y-0.5 px-2">
        {items.map((i) => (
          <NavLink
            key={i.href}
            href={i.href}
            label={i.label}
            hrefs={items.map((x) => x.href)}
            carriesRun={i.carriesRun}
          />
        ))}
      </nav>
      <div className="space-y-1 border-t border-border px-2 py-2">
        {footer}
        <ThemeToggle initial={theme} />
      </div>
    </aside>
  );
}
