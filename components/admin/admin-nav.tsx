import Link from "next/link";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge.tsx";
import { Card } from "@/components/ui/card.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { Td } from "@/components/ui/table.tsx";
import { can, type Action, type Role } from "@/lib/auth/policy.ts";
import { cn } from "@/components/ui/cn.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";

const SECTIONS: { href: string; label: string; action: Action }[] = [
  { href: "/admin", label: "Overview", action: "users.manage" },
  { href: "/admin/users", label: "Users", action: "users.manage" },
  { href: "/admin/tokens", label: "API tokens", action: "tokens.manage" },
  { href: "/admin/configs", label: "Verifier configs", action: "configs.read" },
  { href: "/admin/activity-log", label: "Activity log", action: "activitylog.read" },
];

/** Tabs of the admin area, only those the role may open. */
export function AdminNav({ role, current }: { role: Role; current: string }) {
  const items = SECTIONS.filter((s) => can(role, s.action));
  if (items.length < 2) return null;
  return (
    <nav aria-label="Admin sections" className="mb-4 flex gap-1 border-b border-border">
      {items.map((s) => (
        <Link
          key={s.href}
          href={s.href}
          aria-current={s.href === current ? "page" : undefined}
          className={cn(
            "-mb-px border-b-2 px-2 py-1 text-[13px]",
            s.href === current ? "border-accent font-medium" : "border-transparent text-fg-muted hover:text-fg",
          )}
        >
          {s.label}
        </Link>
      ))}
    </nav>
  );
}

/**
 * The head of an admin page: its title and what it is for, then the admin tabs with this page current, then the
 * card of the page's creation form when it has one (and the user may create).
 */
export function AdminHeader({
  title,
  description,
  role,
  current,
  create,
}: {
  title: string;
  description: string;
  role: Role;
  current: string;
  create?: { title: string; form: ReactNode } | false;
}) {
  return (
    <>
      <PageHeader title={title} description={description} />
      <AdminNav role={role} current={current} />
      {create && (
        <Card title={create.title} className="mb-4">
          {create.form}
        </Card>
      )}
    </>
  );
}

/** A table cell of when something was created and, when known, by whom. */
export function CreatedCell({ at, by }: { at: Date; by: { email: string } | null }) {
  return (
    <Td>
      <DateTime value={at} /> {by && <span className="text-fg-subtle">by {by.email}</span>}
    </Td>
  );
}

/** The first three cells of an activity-log row: when, who, and the action (a failure in red). */
export function ActivityCells({ entry }: { entry: { at: Date; actorLabel: string; action: string } }) {
  return (
    <>
      <Td>
        <DateTime value={entry.at} />
      </Td>
      <Td>{entry.actorLabel}</Td>
      <Td>
        <Badge tone={entry.action.endsWith("failed") ? "bad" : "neutral"}>{entry.action}</Badge>
      </Td>
    </>
  );
}
