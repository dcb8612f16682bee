import type { Metadata } from "next";
import { AdminHeader, CreatedCell } from "@/components/admin/admin-nav.tsx";
import { CreateTokenForm, RevokeTokenForm } from "@/components/admin/token-forms.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Card } from "@/components/ui/card.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { Head, Table, Td } from "@/components/ui/table.tsx";
import { listApiTokens } from "@/lib/admin/data.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { activeTokenScopes, type Role } from "@/lib/auth/policy.ts";

export const metadata: Metadata = { title: "API tokens" };

export default async function TokensPage() {
  const me = await requirePageUser("tokens.manage");
  const tokens = await listApiTokens();
  return (
    <>
      <AdminHeader
        title="API tokens"
        description="Machine access to /api/v1: send Authorization: Bearer <token>. Only a hash of each token is stored. A token may do what its scopes allow and what its owner may do now: disabling its owner stops it, a demotion narrows it."
        role={me.role}
        current="/admin/tokens"
        create={{ title: "Create a token", form: <CreateTokenForm /> }}
      />
      <Card title={`Tokens (${tokens.length})`}>
        {tokens.length === 0 ? (
          <p className="px-3 py-2 text-fg-muted">
            No API tokens yet. The training pipeline needs one with the ingest scope.
          </p>
        ) : (
          <Table>
            <Head cols={["Name", "Token", "Scopes", "Created", "Last used", "State"]} />
            <tbody>
              {tokens.map((t) => (
                <tr key={t.id}>
                  <Td>{t.name}</Td>
                  <Td className="font-mono text-[12px]">vty_{t.prefix}_…</Td>
                  <Td>{t.scopes.join(", ")}</Td>
                  <CreatedCell at={t.createdAt} by={t.createdBy} />
                  <Td>
                    <DateTime value={t.lastUsedAt} />
                  </Td>
                  <Td>
                    {t.revokedAt ? (
                      <Badge tone="bad" title={t.revokedAt.toISOString()}>
                        revoked
                      </Badge>
                    ) : (
                      <div className="flex items-center gap-2">
                        <OwnerState scopes={t.scopes} owner={t.createdBy} />
                        <RevokeTokenForm tokenId={t.id} name={t.name} />
                      </div>
                    )}
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Card>
    </>
  );
}

/** An unrevoked token's state as its owner now makes it: active, inactive (owner disabled) or narrowed (owner's role). */
function OwnerState({
  scopes,
  owner,
}: {
  scopes: string[];
  owner: { email: string; role: Role; disabledAt: Date | null };
}) {
  if (owner.disabledAt) return <Badge tone="bad">inactive: owner {owner.email} is disabled</Badge>;
  const active = activeTokenScopes(scopes, { role: owner.role, disabled: false });
  if (active.length === scopes.length) return <Badge tone="good">active</Badge>;
  return (
    <Badge tone="warn">
      {active.length ? `narrowed to ${active.join(", ")}` : "inactive"}: owner {owner.email} is {owner.role}
    </Badge>
  );
}
