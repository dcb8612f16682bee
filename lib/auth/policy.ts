// The one place that decides who may do what. Pages, server actions, route handlers and the sidebar all ask `can`;
// nothing else compares roles. Pure: no I/O, so the table is unit-tested and read by the access test.

export const ROLES = ["admin", "lead", "researcher", "annotator"] as const;
export type Role = (typeof ROLES)[number];

export const ACTIONS = [
  /** runs list, run pages, monitors: per-step health numbers */
  "runs.read",
  /** ledger rewards, sub-scores, trajectories, clusters, agreement: every ledger number */
  "ledger.read",
  /** the list of shadow-audit batches and their progress */
  "audit.read",
  /** create, close and re-sample audit batches */
  "audit.manage",
  /** work the blind review queue (lease items, submit shadow reviews) */
  "audit.review",
  /** settle a human/ledger disagreement */
  "adjudicate",
  /** open a case's spec workbench: try a revised spec on its rollouts, save it as the next version and re-score */
  "cases.revise",
  /** download sets of rollouts */
  "export",
  /** load rollouts or score records from the console */
  "ingest",
  /** see verifier configurations */
  "configs.read",
  /** add verifier configurations, pick the default one */
  "configs.manage",
  /** create, disable, re-role users and reset their passwords */
  "users.manage",
  /** create and revoke API tokens */
  "tokens.manage",
  /** read the activity log of who did what */
  "activitylog.read",
  /** reward functions: see, write versions, try them and run them over a run */
  "rewards.manage",
] as const;
export type Action = (typeof ACTIONS)[number];

const RESEARCHER: readonly Action[] = ["runs.read", "ledger.read", "audit.read", "export", "configs.read"];
const LEAD: readonly Action[] = [
  ...RESEARCHER,
  "audit.manage",
  "adjudicate",
  "cases.revise",
  "activitylog.read",
  "rewards.manage",
];

/**
 * Role → allowed actions. Annotators score blind, so they get the queue and nothing that shows a ledger number.
 * Admins may do everything.
 */
export const POLICY: Readonly<Record<Role, ReadonlySet<Action>>> = {
  admin: new Set(ACTIONS),
  lead: new Set(LEAD),
  researcher: new Set(RESEARCHER),
  annotator: new Set<Action>(["audit.review"]),
};

export function can(role: Role | null | undefined, action: Action): boolean {
  return !!role && POLICY[role].has(action);
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** Scopes an API token can carry. `read` covers the read API, `ingest` the bulk write API. */
export const TOKEN_SCOPES = ["ingest", "read"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export function tokenAllows(scopes: readonly string[], scope: TokenScope): boolean {
  return scopes.includes(scope);
}

/**
 * What a scope lets a token do, as an action its owner's role must also be allowed: a token may do what its scopes
 * allow *and* what its owner may do now. `read` reads ledger numbers (exports, clusters, agreement, the gate), so its
 * owner must be able to read the ledger.
 */
export const SCOPE_ACTION: Readonly<Record<TokenScope, Action>> = { ingest: "ingest", read: "ledger.read" };

/** A token's owner as the token rule reads them: their role now, and whether they are disabled. */
export type TokenOwner = { role: Role; disabled: boolean };

/** The scopes a token may use now: those it carries that its owner's current role allows; none for a disabled owner. */
export function activeTokenScopes(scopes: readonly string[], owner: TokenOwner): TokenScope[] {
  if (owner.disabled) return [];
  return TOKEN_SCOPES.filter((s) => scopes.includes(s) && can(owner.role, SCOPE_ACTION[s]));
}

/** Where a role lands after signing in or on "/": the first page of the sidebar it may open. */
export function homePath(role: Role): string {
  return can(role, "runs.read") ? "/runs" : "/queue";
}
