import type { Metadata } from "next";
import { AddConfigForm } from "@/components/admin/add-config-form.tsx";
import { AdminHeader, CreatedCell } from "@/components/admin/admin-nav.tsx";
import { ConfigDryRunForm } from "@/components/admin/config-dry-run-form.tsx";
import { SetDefaultConfigForm } from "@/components/admin/set-default-config-form.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { Head, Table, Td } from "@/components/ui/table.tsx";
import { listStoredConfigs } from "@/lib/verifier-configs/data.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { can } from "@/lib/auth/policy.ts";
import { listRunIds } from "@/lib/runs/data.ts";

export const metadata: Metadata = { title: "Verifier configs" };

export default async function ConfigsPage() {
  const me = await requirePageUser("configs.read");
  const configs = await listStoredConfigs();
  const manage = can(me.role, "configs.manage");
  const runs = manage ? await listRunIds() : [];
  return (
    <>
      <AdminHeader
        title="Verifier configs"
        description="Stored versions of weights, guardrail switches and caps. Every score record names the config hash it used."
        role={me.role}
        current="/admin/configs"
        create={manage && { title: "Add a config", form: <AddConfigForm /> }}
      />
      {manage && runs.length > 0 && (
        <Card title="Dry-run a config before re-scoring a run" className="mb-4">
          <ConfigDryRunForm
            runs={runs}
            configs={configs.map((c) => ({ id: c.id, label: `${c.name} v${c.version}` }))}
          />
        </Card>
      )}
      {configs.length === 0 ? (
        <EmptyState title="No stored configs">The built-in default config is used.</EmptyState>
      ) : (
        <Card>
          <Table>
            <Head cols={["Config", "Hash", "Created", "Default"]} />
            <tbody>
              {configs.map((c) => (
                <tr key={c.id}>
                  <Td>
                    {c.name} v{c.version}
                  </Td>
                  <Td className="font-mono text-[12px]">{c.hash.slice(0, 19)}</Td>
                  <CreatedCell at={c.createdAt} by={c.createdBy} />
                  <Td>
                    {c.isDefault ? (
                      <Badge tone="accent">default</Badge>
                    ) : (
                      manage && <SetDefaultConfigForm configId={c.id} />
                    )}
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </Card>
      )}
    </>
  );
}
