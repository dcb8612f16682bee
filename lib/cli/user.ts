// `verity user …`: manage console users from the command line — above all, create the first admin of a production
// deployment, where no demo users exist. Passwords come from stdin (--password-stdin) or a prompt that does not echo.

import { z } from "zod";
import { changeRole, createUser, resetPassword, setUserDisabled } from "@/lib/admin/mutations.ts";
import { createUserInput, passwordField, roleField } from "@/lib/admin/schema.ts";
import { describeTokenEffects } from "@/lib/admin/token-effects.ts";
import { emailField } from "@/lib/auth/schema.ts";
import { withClient } from "@/lib/cli/client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { flagSpec, parseSubcommand, type Io as CommandIo, stdio } from "@/lib/cli/command.ts";

const USAGE = `usage: verity user <subcommand> [options]

subcommands:
  create --email EMAIL --role ROLE [--name NAME] [--password-stdin]
                       create a user (roles: admin, lead, researcher, annotator)
  list                 list users with role and state
  reset-password --email EMAIL [--password-stdin]
                       set a new password (ends the user's sessions, clears the sign-in lock)
  set-role --email EMAIL --role ROLE
  disable --email EMAIL
  enable --email EMAIL

Without --password-stdin the password is asked for twice on the terminal and not echoed.
Example (first admin of a production deployment):
  npm run -s verity -- user create --role admin --email you@example.com`;

const CLI_ACTOR = { label: "cli" } as const;

type Io = Pick<CommandIo, "out" | "err">;
const io: Io = stdio;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(Buffer.from(c));
  // One trailing newline (from `echo` or a file) is not part of the password.
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/** Reads a line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(question);
    let value = "";
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding("utf8");
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener("data", onData);
      process.stderr.write("\n");
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003") return done(new Error("cancelled"));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on("data", onData);
  });
}

async function readPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) return readStdin();
  if (!process.stdin.isTTY) throw new Error("no terminal to ask for the password: pipe it in with --password-stdin");
  const first = await promptHidden("Password: ");
  const second = await promptHidden("Repeat password: ");
  if (first !== second) throw new Error("the passwords differ");
  return first;
}

function check<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new Error(
      `${what}: ${r.error.issues.map((i) => (i.path.length ? `${i.path.join(".")} ` : "") + i.message).join("; ")}`,
    );
  return r.data;
}

async function userIdByEmail(client: PrismaClient, email: string): Promise<number> {
  const u = await client.user.findUnique({ where: { email }, select: { id: true } });
  if (!u) throw new Error(`no user with email ${email}`);
  return u.id;
}

export async function run(argv: string[], out: Io = io): Promise<number> {
  const args = parseSubcommand(
    "user",
    USAGE,
    argv,
    flagSpec(["email", "role", "name"], ["password-stdin"]),
    out,
    false,
  );
  if ("exit" in args) return args.exit;
  const { sub, values } = args;
  try {
    switch (sub) {
      case "create": {
        const base = check(
          createUserInput.omit({ password: true }),
          { email: values.email, role: values.role, name: values.name ?? "" },
          "create",
        );
        const password = check(passwordField, await readPassword(!!values["password-stdin"]), "password");
        const r = await withClient((c) => createUser({ ...base, password }, CLI_ACTOR, c));
        if (!r.ok) throw new Error(r.error);
        out.out(`created ${base.email} (${base.role}), id ${r.id}`);
        return 0;
      }
      case "list": {
        const users = await withClient((c) =>
          c.user.findMany({ orderBy: { email: "asc" }, select: { email: true, role: true, disabledAt: true } }),
        );
        if (users.length === 0)
          out.out("no users yet: create the first admin with `verity user create --role admin --email …`");
        for (const u of users) out.out(`${u.email}\t${u.role}\t${u.disabledAt ? "disabled" : "active"}`);
        return 0;
      }
      case "reset-password": {
        const email = check(emailField, values.email, "--email");
        const password = check(passwordField, await readPassword(!!values["password-stdin"]), "password");
        await withClient(async (c) => {
          const r = await resetPassword(await userIdByEmail(c, email), password, CLI_ACTOR, c);
          if (!r.ok) throw new Error(r.error);
        });
        out.out(`password of ${email} reset; their sessions were ended`);
        return 0;
      }
      case "set-role": {
        const email = check(emailField, values.email, "--email");
        const role = check(roleField, values.role, "--role");
        const tokens = await withClient(async (c) => {
          const r = await changeRole(await userIdByEmail(c, email), role, CLI_ACTOR, c);
          if (!r.ok) throw new Error(r.error);
          return r.tokens;
        });
        out.out(`${email} is now ${role}`);
        if (tokens.length) out.err(describeTokenEffects(tokens));
        return 0;
      }
      case "disable":
      case "enable": {
        const email = check(emailField, values.email, "--email");
        const tokens = await withClient(async (c) => {
          const r = await setUserDisabled(await userIdByEmail(c, email), sub === "disable", CLI_ACTOR, c);
          if (!r.ok) throw new Error(r.error);
          return r.tokens;
        });
        out.out(`${email} ${sub}d`);
        if (tokens.length) out.err(describeTokenEffects(tokens));
        return 0;
      }
      default:
        out.err(`verity user: unknown subcommand "${sub}"\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    out.err(`verity user: ${(err as Error).message}`);
    return 1;
  }
}
