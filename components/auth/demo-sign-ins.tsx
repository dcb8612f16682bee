import type { DemoSignIn } from "@/lib/auth/data.ts";

/** The demo accounts, on the sign-in page of a demo install (listDemoSignIns decides when there are any). */
export function DemoSignIns({ accounts }: { accounts: DemoSignIn[] }) {
  if (!accounts.length) return null;
  return (
    <section aria-label="Demo accounts" className="mt-4 border-t border-border pt-3 text-[12px]">
      <h2 className="mb-1 font-medium">Demo accounts</h2>
      <p className="mb-2 text-fg-muted">This is a demo install: sign in as any role.</p>
      <table className="w-full">
        <thead className="sr-only">
          <tr>
            <th>Email</th>
            <th>Role</th>
            <th>Password</th>
          </tr>
        </thead>
        <tbody>
          {accounts.map((a) => (
            <tr key={a.email}>
              <td className="font-mono">{a.email}</td>
              <td className="text-fg-muted">{a.role}</td>
              <td className="font-mono">{a.password}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
