// `verity token …`: API tokens for automation (a CI job, a trainer's launcher) without the browser. A token belongs to
// a user who may manage tokens (an admin); creating and revoking one is recorded like the same action in the console.
// The new token is printed once, alone on stdout, so `TOKEN=$(verity token create …)` captures exactly it.

import { listApiTokens } from "@/lib/admin/data.ts";
import { createApiToken, revokeApiToken } from "@/lib/admin/mutations.ts";
import { createTokenInput } from "@/lib/admin/schema.ts";
import { can, isRole, TOKEN_SCOPES } from "@/lib/auth/policy.ts";
import { emailField } from "@/lib/auth/schema.ts";
import { withClient } from "@/lib/cli/client.ts";
import { flagSpec, parseSubcommand, type Io as CommandIo, stdio } from "@/lib/cli/command.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";

const USAGE = `usage: verity token <subcommand> [options]

subcommands:
  create --name NAME --scope ${TOKEN_SCOPES.join("|")} [--scope …] [--as EMAIL]
                       create a token and print it once (stdout, nothing else); --scope may repeat or list
                       scopes separated by commas; --as names the admin who owns it (default: the only active admin)
  list [--json]        every token: id, name, prefix, scopes, owner, created, last used, revoked
  revoke ID|PREFIX     revoke a token by its id or its prefix (the 8 hex digits after vty_)

Example (a trainer's ingest token):
  export VERITY_TOKEN=$(npm run -s verity -- token create --name "grpo launcher" --scope ingest)`;

type Io = Pick<CommandIo, "out" | "err">;

class UsageError extends Error {}

/** The admin who owns a new token: the one named, or the only active user who may manage tokens. */
async function owner(client: PrismaClient, email: string | undefined): Promise<{ userId: number; email: string }> {
  const users = await client.user.findMany({
    where: { disabledAt: null, ...(email ? { email } : {}) },
    select: { id: true, email: true, role: true },
  });
  const managers = users.filter((u) => isRole(u.role) && can(u.role, "tokens.manage"));
  if (email) {
    if (users.length === 0) throw new UsageError(`--as: no active user with email ${email}`);
    if (managers.length === 0) throw new UsageError(`--as: ${email} is ${users[0].role}; only an admin owns tokens`);
  } else if (managers.length !== 1) {
    throw new UsageError(
      managers.length === 0
        ? "no active admin to own the token: create one with `verity user create --role admin --email …`"
        : `${managers.length} active admins: name the token's owner with --as EMAIL`,
    );
  }
  return { userId: managers[0].id, email: managers[0].email };
}

function scopesOf(values: string[]): string[] {
  return values.flatMap((v) => v.split(",")).map((s) => s.trim());
}

const isoOrDash = (d: Date | null) => (d ? d.toISOString() : "-");

export async function run(argv: string[], out: Io = stdio): Promise<number> {
  const args = parseSubcommand(
    "token",
    USAGE,
    argv,
    {
      ...flagSpec(["name", "as"], ["json"]),
      scope: { type: "string", multiple: true },
    },
    out,
  );
  if ("exit" in args) return args.exit;
  const { sub, values, positionals } = args;
  try {
    switch (sub) {
      case "create": {
        if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
        const input = createTokenInput.safeParse({ name: values.name ?? "", scopes: scopesOf(values.scope ?? []) });
        if (!input.success) {
          const issue = input.error.issues[0];
          throw new UsageError(`--${issue.path[0] === "scopes" ? "scope" : "name"}: ${issue.message}`);
        }
        const as = values.as === undefined ? undefined : emailField.safeParse(values.as);
        if (as && !as.success) throw new UsageError(`--as: ${as.error.issues[0].message}`);
        const r = await withClient(async (c) => createApiToken(input.data, await owner(c, as?.data), c));
        out.out(r.token);
        out.err(
          `created token "${input.data.name}" (id ${r.id}, prefix ${r.prefix}, scopes ${[...new Set(input.data.scopes)].sort().join(",")}): ` +
            "it is not shown again",
        );
        return 0;
      }
      case "list": {
        const tokens = await withClient((c) => listApiTokens("id", c));
        if (values.json) {
          for (const t of tokens) {
            const { createdBy, ...rest } = t;
            out.out(JSON.stringify({ ...rest, owner: createdBy.email }));
          }
          return 0;
        }
        if (tokens.length === 0)
          out.out("no tokens yet: create one with `verity token create --name N --scope ingest`");
        for (const t of tokens) {
          out.out(
            [
              t.id,
              t.name,
              `vty_${t.prefix}_…`,
              t.scopes.join(","),
              t.createdBy.email,
              isoOrDash(t.createdAt),
              isoOrDash(t.lastUsedAt),
              t.revokedAt ? `revoked ${t.revokedAt.toISOString()}` : "active",
            ].join("\t"),
          );
        }
        return 0;
      }
      case "revoke": {
        if (positionals.length !== 1) throw new UsageError("name one token: its id or its prefix");
        const key = positionals[0];
        const prefix = key.replace(/^vty_/, "").replace(/_$/, "");
        const byId = /^\d{1,9}$/.test(key);
        const byPrefix = /^[0-9a-f]{8}$/.test(prefix);
        if (!byId && !byPrefix) throw new UsageError(`"${key}" is neither a token id nor a prefix (8 hex digits)`);
        const message = await withClient(async (c) => {
          // Eight decimal digits can be either: look up both, and refuse if they name different tokens.
          const found = await c.apiToken.findMany({
            where: { OR: [...(byId ? [{ id: Number(key) }] : []), ...(byPrefix ? [{ prefix }] : [])] },
            select: { id: true, name: true, revokedAt: true },
          });
          if (found.length === 0) throw new UsageError(`no token with ${byPrefix ? "prefix" : "id"} ${key}`);
          if (found.length > 1) throw new UsageError(`${key} names ${found.length} tokens: revoke by id`);
          const t = found[0];
          if (t.revokedAt) return `token ${t.id} "${t.name}" was already revoked`;
          const r = await revokeApiToken(t.id, { label: "cli" }, c);
          if (!r.ok) throw new Error(r.error);
          return `revoked token ${t.id} "${t.name}"`;
        });
        out.out(message);
        return 0;
      }
      default:
        out.err(`verity token: unknown subcommand "${sub}"\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    out.err(`verity token: ${(err as Error).message}`);
    return err instanceof UsageError ? 2 : 1;
  }
}
