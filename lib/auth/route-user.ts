import type { SessionUser } from "@/lib/auth/data.ts";
import { can, type Action } from "@/lib/auth/policy.ts";
import { getCurrentUser } from "@/lib/auth/session.ts";
import { apiError, type Result } from "@/lib/result.ts";

/**
 * For the console's own JSON and download routes (signed-in browsers, not API tokens): the user when the policy
 * allows `action`, otherwise the 401/403 JSON response to return.
 */
export async function routeUser(action: Action): Promise<Result<{ user: SessionUser }, { response: Response }>> {
  const user = await getCurrentUser();
  if (!user) return { ok: false, response: apiError(401, "unauthenticated", "Sign in first.") };
  if (!can(user.role, action))
    return { ok: false, response: apiError(403, "forbidden", `Your role (${user.role}) may not do this (${action}).`) };
  return { ok: true, user };
}
