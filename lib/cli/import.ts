// `verity import <format> ...`: logs teams already have, loaded into the ledger through the ingest path. Each format
// is a subcommand with its own flags (`verity import <format> --help`); the last stdout line is the JSON summary,
// as for `verity ingest`.
import { stdio, type Io } from "@/lib/cli/command.ts";

const formats: Record<
  string,
  { about: string; load: () => Promise<{ run: (argv: string[], io?: Io) => Promise<number> }> }
> = {
  jsonl: {
    about: "rollout dumps, one rollout a line: --preset verl|trl, or --map field=path,...",
    load: () => import("@/lib/cli/import-jsonl.ts"),
  },
  tau2: {
    about: "a tau2-bench results file (tasks and simulations) with its domain's db.json: --db DB.json",
    load: () => import("@/lib/cli/import-tau2.ts"),
  },
};

const USAGE = `usage: verity import <format> FILE [options]

formats:
${Object.entries(formats)
  .map(([name, f]) => `  ${name.padEnd(8)} ${f.about}`)
  .join("\n")}

Run "verity import <format> --help" for a format's options.`;

export async function run(argv: string[], io: Io = stdio): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h") {
    (name ? io.out : io.err)(USAGE);
    return name ? 0 : 2;
  }
  const format = formats[name];
  if (!format) {
    io.err(`verity import: unknown format "${name}"\n\n${USAGE}`);
    return 2;
  }
  const mod = await format.load();
  return mod.run(rest, io);
}
