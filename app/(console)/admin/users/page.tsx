import type { Metadata } from "next";
import { AdminHeader } from "@/components/admin/admin-nav.tsx";
import { CreateUserForm } from "@/components/admin/create-user-form.tsx";
import { DisableForm, ResetPasswordForm, RoleForm } from "@/components/admin/user-row-actions.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Card } from "@/components/ui/card.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { Head, Table, Td } from "@/components/ui/table.tsx";
import { listUsers } from "@/lib/admin/data.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";

export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  const me = await requirePageUser("users.manage");
  const users = await listUsers();
  return (
    <>
      <AdminHeader
        title="Users"
        description="Who can sign in, with which role. Disabling a user ends their sessions and stops their API tokens at once; a role change narrows or widens their tokens."
        role={me.role}
        current="/admin/users"
        create={{ title: "Create a user", form: <CreateUserForm /> }}
      />
      <Card title={`Users (${users.length})`}>
        <Table>
          <Head cols={["Email", "Name", "Role", "State", "API tokens", "Created", "Password"]} />
          <tbody>
            {users.map((u) => (
              <tr key={u.id}>
                <Td>
                  {u.email}
                  {u.id === me.id && <span className="ml-1 text-fg-subtle">(you)</span>}
                </Td>
                <Td>{u.name}</Td>
                <Td>
                  <RoleForm userId={u.id} email={u.email} role={u.role} />
                </Td>
                <Td>
                  <div className="flex items-center gap-2">
                    {u.disabledAt ? <Badge tone="bad">disabled</Badge> : <Badge tone="good">active</Badge>}
                    {u.id !== me.id && <DisableForm userId={u.id} disabled={!!u.disabledAt} />}
                  </div>
                </Td>
                <Td className="text-[12px]">
                  {u.tokens.length === 0 ? "none" : u.tokens.map((t) => `“${t.name}” (vty_${t.prefix}_…)`).join(", ")}
                </Td>
                <Td>
                  <DateTime value={u.createdAt} />
                </Td>
                <Td>
                  <ResetPasswordForm userId={u.id} email={u.email} />
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      </Card>
    </>
  );
}
