// What a change to a user does to their API tokens. A token may do what its scopes allow and what its owner may do
// now (lib/auth/policy.ts activeTokenScopes), so disabling, enabling or re-roling a user changes their tokens at once;
// the change names each token it affects, in its answer and in the activity log. Pure.
import { activeTokenScopes, type TokenOwner, type TokenScope } from "@/lib/auth/policy.ts";

export type OwnedToken = { id: number; name: string; prefix: string; scopes: readonly string[] };

/** A token whose usable scopes a change moves `from` → `to` (an empty `to`: the token no longer works). */
export type TokenEffect = { id: number; name: string; prefix: string; from: TokenScope[]; to: TokenScope[] };

/** The unrevoked tokens whose usable scopes differ between the owner `before` and `after` a change. */
export function tokenEffects(tokens: readonly OwnedToken[], before: TokenOwner, after: TokenOwner): TokenEffect[] {
  const effects: TokenEffect[] = [];
  for (const t of tokens) {
    const from = activeTokenScopes(t.scopes, before);
    const to = activeTokenScopes(t.scopes, after);
    if (from.join(",") !== to.join(",")) effects.push({ id: t.id, name: t.name, prefix: t.prefix, from, to });
  }
  return effects;
}

const scopeList = (s: readonly TokenScope[]) => (s.length ? s.join(", ") : "none");

/** One sentence naming each affected token and its usable scopes before → after, or "" when none is affected. */
export function describeTokenEffects(effects: readonly TokenEffect[]): string {
  if (effects.length === 0) return "";
  const each = effects.map(
    (e) =>
      `“${e.name}” (vty_${e.prefix}_…) ${scopeList(e.from)} → ${scopeList(e.to)}${e.to.length ? "" : ", inactive"}`,
  );
  return `API token${effects.length === 1 ? "" : "s"} affected: ${each.join("; ")}.`;
}
