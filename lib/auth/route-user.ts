import { can, type Action } from "@/lib/auth/policy.ts";
import { getCurrentUser } from "@/lib/auth/session.ts";
import type { SessionUser } from "@/lib/auth/data.ts";

/**
 * For the console's own JSON/file routes (signed-in users, not API tokens): the user when allowed, otherwise the
 * 401/403 response to return.
 */
export async function routeUser(action: Action): Promise<{ ok: true; user: SessionUser } | { ok: false; response: Response }> {
  const user = await getCurrentUser();
  if (!user) return { ok: false, response: Response.json({ error: { code: "unauthenticated", message: "Sign in first." } }, { status: 401 }) };
  if (!can(user.role, action))
    return { ok: false, response: Response.json({ error: { code: "forbidden", message: `Your role (${user.role}) may not do this.` } }, { status: 403 }) };
  return { ok: true, user };
}
