import { signOut } from "@/lib/actions/auth.ts";

/** Who is signed in, with which role, and the way out. */
export function UserMenu({ email, role }: { email: string; role: string }) {
  return (
    <div className="px-2 pb-1" aria-label="Signed in user">
      <div className="truncate text-[12px] font-medium" title={email}>
        {email}
      </div>
      <div className="text-[11px] text-fg-subtle">{role}</div>
      <form action={signOut} className="mt-1">
        <button
          type="submit"
          className="w-full rounded px-2 py-1 text-left text-[12px] text-fg-muted hover:bg-bg-muted"
        >
          Sign out
        </button>
      </form>
    </div>
  );
}
