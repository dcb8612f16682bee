// `verity db distribute`: lays a migrated database on a Citus coordinator out across its workers (lib/db/distribute.ts,
// docs/scale.md "Verity on Citus"). Reads DATABASE_URL, the coordinator's database: a distributed database is never
// the embedded one.
import { type Io, parseFlags, stdio } from "@/lib/cli/command.ts";
import { distributeDatabase, DistributeRefusedError } from "@/lib/db/distribute.ts";

const USAGE = `usage: verity db distribute

Turns the migrated database at DATABASE_URL (a Citus coordinator with its workers added) into Verity's distributed
layout: shared tables become reference tables, run-scoped tables are distributed by run_id and co-located, with
their rows. Idempotent: on a database distributed already it does only what is left (what a later migration added,
which \`npm run db:migrate\` distributes itself), and says so when nothing is. Restart the console afterwards: the
database settings it makes apply to new sessions.`;

export async function run(argv: string[], io: Io = stdio): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "--help" || sub === "-h") {
    io.out(USAGE);
    return 0;
  }
  if (sub !== "distribute") {
    io.err(`verity db: ${sub ? `unknown subcommand "${sub}"` : "missing subcommand"}\n\n${USAGE}`);
    return 2;
  }
  const flags = parseFlags("db distribute", USAGE, rest, {}, io);
  if ("exit" in flags) return flags.exit;
  const url = process.env.DATABASE_URL;
  if (!url) {
    io.err("verity db distribute: DATABASE_URL is not set: point it at the Citus coordinator's database");
    return 2;
  }
  let r;
  try {
    r = await distributeDatabase(url, (line) => io.err(`verity db distribute: ${line}`));
  } catch (err) {
    if (!(err instanceof DistributeRefusedError)) throw err;
    io.err(`verity db distribute: ${err.message}; nothing was changed`);
    return 1;
  }
  if (!r.changed) io.err(`verity db distribute: ${r.steps.join("; ")}`);
  io.out(JSON.stringify(r));
  return 0;
}
