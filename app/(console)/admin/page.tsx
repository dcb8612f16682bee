import type { Metadata } from "next";
import { Badge } from "@/components/ui/badge.tsx";
import { Card } from "@/components/ui/card.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { listApiTokens, listAuditLog, listUsers, listVerifierConfigs } from "@/lib/admin/data.ts";

export const metadata: Metadata = { title: "Admin" };

export default async function AdminPage() {
  const [users, tokens, configs, log] = await Promise.all([listUsers(), listApiTokens(), listVerifierConfigs(), listAuditLog({ limit: 20 })]);
  return (
    <>
      <PageHeader title="Admin" description="Users, API tokens, verifier configurations and the audit log." />
      <div className="grid gap-4 lg:grid-cols-2">
        <Card title={`Users (${users.length})`}>
          {users.length === 0 ? (
            <p className="px-3 py-2 text-fg-muted">No users yet. Create the first admin with <code>npm run -s verity -- user create --role admin --email …</code>.</p>
          ) : (
            <Table>
              <thead>
                <tr>
                  <Th>Email</Th>
                  <Th>Role</Th>
                  <Th>State</Th>
                </tr>
              </thead>
              <tbody>
                {users.map((u) => (
                  <tr key={u.id}>
                    <Td>{u.email}</Td>
                    <Td>{u.role}</Td>
                    <Td>{u.disabledAt ? <Badge tone="bad">disabled</Badge> : <Badge tone="good">active</Badge>}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card>
        <Card title={`API tokens (${tokens.length})`}>
          {tokens.length === 0 ? (
            <p className="px-3 py-2 text-fg-muted">No API tokens. The training pipeline needs one with the ingest scope.</p>
          ) : (
            <Table>
              <thead>
                <tr>
                  <Th>Name</Th>
                  <Th>Scopes</Th>
                  <Th>Last used</Th>
                </tr>
              </thead>
              <tbody>
                {tokens.map((t) => (
                  <tr key={t.id}>
                    <Td>{t.name}</Td>
                    <Td>{t.scopes.join(", ")}</Td>
                    <Td>{t.revokedAt ? "revoked" : (t.lastUsedAt?.toISOString() ?? "never")}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card>
        <Card title={`Verifier configs (${configs.length})`}>
          {configs.length === 0 ? (
            <p className="px-3 py-2 text-fg-muted">No stored configs: the built-in default config is used.</p>
          ) : (
            <Table>
              <tbody>
                {configs.map((c) => (
                  <tr key={c.id}>
                    <Td>
                      {c.name} v{c.version} {c.isDefault && <Badge tone="accent">default</Badge>}
                    </Td>
                    <Td className="font-mono text-[12px]">{c.hash.slice(0, 19)}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card>
        <Card title="Audit log (latest)">
          {log.length === 0 ? (
            <p className="px-3 py-2 text-fg-muted">Nothing recorded yet.</p>
          ) : (
            <Table>
              <tbody>
                {log.map((e) => (
                  <tr key={e.id.toString()}>
                    <Td className="whitespace-nowrap">{e.at.toISOString()}</Td>
                    <Td>{e.actorLabel}</Td>
                    <Td className="font-mono text-[12px]">{e.action}</Td>
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
