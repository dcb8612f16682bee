import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { ActivityTarget } from "@/components/admin/activity-target.tsx";
import { ActivityCells, AdminHeader } from "@/components/admin/admin-nav.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { inputClass } from "@/components/ui/field.tsx";
import { Head, Table, Td } from "@/components/ui/table.tsx";
import { listActivityLog } from "@/lib/admin/data.ts";
import { activityLogQuery, type ActivityLogQuery } from "@/lib/admin/schema.ts";
import { ACTIVITY_ACTIONS } from "@/lib/auth/activity-log.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";

export const metadata: Metadata = { title: "Activity log" };

export default async function ActivityLogPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const me = await requirePageUser("activitylog.read");
  const parsed = activityLogQuery.safeParse(await searchParams);
  const q: Partial<ActivityLogQuery> = parsed.success ? parsed.data : {};
  const page = parsed.success ? await listActivityLog(q) : { entries: [], nextBefore: null };
  const filters = Object.fromEntries(
    Object.entries({ action: q.action, actor: q.actor, from: q.from, to: q.to }).filter(([, v]) => v),
  ) as Record<string, string>;
  const olderHref = page.nextBefore
    ? `/admin/activity-log?${new URLSearchParams({ ...filters, before: page.nextBefore.toString() })}`
    : null;
  const field = (id: string, label: string, input: ReactNode) => (
    <div>
      <label htmlFor={id} className="mb-1 block text-[12px] font-medium">
        {label}
      </label>
      {input}
    </div>
  );
  return (
    <>
      <AdminHeader
        title="Activity log"
        description="Who did what and when: sign-ins, user, role, token and config changes, reviews and verdicts, ingests and imports. Each target links to its page. Append-only."
        role={me.role}
        current="/admin/activity-log"
      />
      <form
        method="get"
        action="/admin/activity-log"
        className="mb-4 grid items-end gap-2 md:grid-cols-5"
        aria-label="Filter the activity log"
      >
        {field(
          "f-action",
          "Action",
          <input id="f-action" name="action" list="activity-actions" defaultValue={q.action} className={inputClass} />,
        )}
        <datalist id="activity-actions">
          {ACTIVITY_ACTIONS.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        {field(
          "f-actor",
          "Actor",
          <input
            id="f-actor"
            name="actor"
            placeholder="email, cli, token:name"
            defaultValue={q.actor}
            className={inputClass}
          />,
        )}
        {field(
          "f-from",
          "From",
          <input id="f-from" name="from" type="date" defaultValue={q.from} className={inputClass} />,
        )}
        {field("f-to", "To", <input id="f-to" name="to" type="date" defaultValue={q.to} className={inputClass} />)}
        <div className="flex gap-2">
          <button type="submit" className="rounded bg-accent px-3 py-1 font-medium text-accent-fg">
            Filter
          </button>
          <Link href="/admin/activity-log" className="px-2 py-1 text-accent hover:underline">
            Clear
          </Link>
        </div>
      </form>
      {!parsed.success ? (
        <EmptyState title="This link has a bad filter">
          {parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}.
        </EmptyState>
      ) : page.entries.length === 0 ? (
        <EmptyState title={q.before ? "No older entries" : "No entries match"} />
      ) : (
        <Card
          title={`${page.entries.length} entries`}
          actions={
            olderHref && (
              <Link className="text-accent hover:underline" href={olderHref}>
                Older →
              </Link>
            )
          }
        >
          <Table>
            <Head cols={["When", "Actor", "Action", "Target", "Details"]} />
            <tbody>
              {page.entries.map((e) => (
                <tr key={e.id.toString()}>
                  <ActivityCells entry={e} />
                  <Td>
                    <ActivityTarget entry={e} role={me.role} />
                  </Td>
                  <Td className="font-mono text-[12px]">{JSON.stringify(e.details)}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </Card>
      )}
    </>
  );
}
