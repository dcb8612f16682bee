import type { Metadata } from "next";
import Link from "next/link";
import { ActivityCells, AdminHeader } from "@/components/admin/admin-nav.tsx";
import { Card } from "@/components/ui/card.tsx";
import { Table, Td } from "@/components/ui/table.tsx";
import { listApiTokens, listActivityLog, listUsers } from "@/lib/admin/data.ts";
import { listStoredConfigs } from "@/lib/verifier-configs/data.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";

export const metadata: Metadata = { title: "Admin" };

export default async function AdminPage() {
  const me = await requirePageUser("users.manage");
  const [users, tokens, configs, log] = await Promise.all([
    listUsers(),
    listApiTokens(),
    listStoredConfigs(),
    listActivityLog({ limit: 10 }),
  ]);
  const active = tokens.filter((t) => !t.revokedAt);
  const link = (href: string, text: string) => (
    <Link className="text-accent hover:underline" href={href}>
      {text}
    </Link>
  );
  return (
    <>
      <AdminHeader
        title="Admin"
        description="Users, API tokens, verifier configurations and the activity log."
        role={me.role}
        current="/admin"
      />
      <div className="grid gap-4 lg:grid-cols-2">
        <Card title={`Users (${users.length})`} actions={link("/admin/users", "Manage users →")}>
          <p className="px-3 py-2 text-fg-muted">
            {users.filter((u) => !u.disabledAt).length} active, {users.filter((u) => u.disabledAt).length} disabled ·{" "}
            {(["admin", "lead", "researcher", "annotator"] as const)
              .map((r) => `${users.filter((u) => u.role === r).length} ${r}`)
              .join(", ")}
          </p>
        </Card>
        <Card title={`API tokens (${active.length} active)`} actions={link("/admin/tokens", "Manage tokens →")}>
          <p className="px-3 py-2 text-fg-muted">
            {active.length === 0
              ? "No API tokens. The training pipeline needs one with the ingest scope."
              : active.map((t) => t.name).join(", ")}
          </p>
        </Card>
        <Card title={`Verifier configs (${configs.length})`} actions={link("/admin/configs", "Configs →")}>
          <p className="px-3 py-2 text-fg-muted">
            {configs.length === 0
              ? "No stored configs: the built-in default config is used."
              : configs.map((c) => `${c.name} v${c.version}${c.isDefault ? " (default)" : ""}`).join(", ")}
          </p>
        </Card>
        <Card title="Activity log (latest)" actions={link("/admin/activity-log", "Full log →")}>
          {log.entries.length === 0 ? (
            <p className="px-3 py-2 text-fg-muted">Nothing recorded yet.</p>
          ) : (
            <Table>
              <tbody>
                {log.entries.map((e) => (
                  <tr key={e.id.toString()}>
                    <ActivityCells entry={e} />
                    <Td>{e.targetType && `${e.targetType} ${e.targetId}`}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card>
      </div>
    </>
  );
}
