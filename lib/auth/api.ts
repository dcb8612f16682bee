// Authentication of /api/v1/* route handlers: `Authorization: Bearer vty_…`. Errors are JSON
// {error: {code, message}}: 401 for a missing, malformed, unknown or revoked token or one whose owner is disabled, 403
// for a missing scope or a scope its owner's current role no longer allows. The owner is read on every request, so
// disabling or demoting a user changes what their tokens may do at once.
import "server-only";
import type { ActivityActor } from "@/lib/auth/activity-log.ts";
import { activeTokenScopes, SCOPE_ACTION, tokenAllows, type TokenScope } from "@/lib/auth/policy.ts";
import { findApiToken } from "@/lib/auth/data.ts";
import { touchApiToken } from "@/lib/auth/mutations.ts";
import { apiTokenHash } from "@/lib/auth/tokens.ts";
import type { Db } from "@/lib/db/client.ts";
import { apiError, type Result } from "@/lib/result.ts";

export type ApiPrincipal = {
  tokenId: number;
  name: string;
  prefix: string;
  /** The scopes the token was created with. */
  scopes: string[];
  /** Those its owner's current role still allows (lib/auth/policy.ts activeTokenScopes). */
  activeScopes: TokenScope[];
  createdById: number;
};

export type ApiAuthResult = Result<{ principal: ApiPrincipal }, { response: Response }>;

function unauthorized(code: string, message: string): Response {
  return apiError(401, code, message, { "www-authenticate": `Bearer realm="verity", error="invalid_token"` });
}

/** last_used_at is written at most once a minute per token, so a busy ingest loop does not write on every call. */
const TOUCH_EVERY_MS = 60_000;

/**
 * Checks the bearer token of a request; `scope` null accepts any valid token. On success the token's last use is
 * recorded. Routes ask through lib/api/route.ts (`auth: { token: "ingest" }`).
 */
export async function authenticateApi(
  req: Request,
  scope: TokenScope | null,
  now = new Date(),
  client?: Db,
): Promise<ApiAuthResult> {
  const header = req.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) {
    return {
      ok: false,
      response: unauthorized(
        "unauthenticated",
        "Send an API token: Authorization: Bearer vty_…. An admin creates tokens under Admin → API tokens.",
      ),
    };
  }
  const hash = apiTokenHash(match[1]);
  const token = hash ? await findApiToken(hash, client) : null;
  if (!token) return { ok: false, response: unauthorized("invalid_token", "This API token is not valid.") };
  if (token.revokedAt)
    return { ok: false, response: unauthorized("invalid_token", "This API token has been revoked.") };
  if (token.createdBy.disabledAt)
    return {
      ok: false,
      response: unauthorized("invalid_token", "This API token is inactive: the account of its owner is disabled."),
    };
  const owner = { role: token.createdBy.role, disabled: false };
  if (scope && !tokenAllows(token.scopes, scope)) {
    return {
      ok: false,
      response: apiError(
        403,
        "insufficient_scope",
        `This API token lacks the "${scope}" scope. Create a token with the "${scope}" scope under Admin → API tokens.`,
      ),
    };
  }
  const activeScopes = activeTokenScopes(token.scopes, owner);
  if (scope && !activeScopes.includes(scope)) {
    return {
      ok: false,
      response: apiError(
        403,
        "owner_not_allowed",
        `This API token's "${scope}" scope is narrowed: its owner's role is now ${owner.role}, which may not ${SCOPE_ACTION[scope] === "ingest" ? "ingest" : "read the ledger"}. Use a token whose owner may.`,
      ),
    };
  }
  if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() >= TOUCH_EVERY_MS) {
    await touchApiToken(token.id, now, client);
  }
  return {
    ok: true,
    principal: {
      tokenId: token.id,
      name: token.name,
      prefix: token.prefix,
      scopes: token.scopes,
      activeScopes,
      createdById: token.createdById,
    },
  };
}

/** Activity-log actor for changes made through the API. */
export function apiActor(p: ApiPrincipal): ActivityActor {
  return { tokenId: p.tokenId, name: p.name };
}
