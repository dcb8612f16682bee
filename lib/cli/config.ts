// `verity config add FILE [--name N] [--default]` and `verity config list`: store verifier configs (versioned by
// name, identified by their canonical hash) so re-scoring and the console can pick them.
import fs from "node:fs";

import { withClient } from "@/lib/cli/client.ts";
import { listStoredConfigs } from "@/lib/verifier-configs/data.ts";
import { addVerifierConfig } from "@/lib/verifier-configs/mutations.ts";
import {
  configNameField,
  formatConfigIssues,
  MAX_CONFIG_BYTES,
  nameFromFileName,
  parseConfigDocument,
} from "@/lib/verifier-configs/schema.ts";
import { parseSubcommand, type Io as CommandIo, stdio } from "@/lib/cli/command.ts";

const USAGE = `usage: verity config <subcommand> [options]

subcommands:
  add FILE [--name NAME] [--default]
                       store the verifier config in FILE (JSON, merged onto the default config) as the next
                       version of NAME (default: the file name without .json); --default makes it the default.
                       A config already stored (same canonical hash) is reported unchanged, not stored again.
  list [--json]        list stored configs: name, version, hash, default

The config's fields: weights (five sub-scores summing to 1), guardrails (per code {on, cap}), handoff_outcome,
claims. Example: {"guardrails": {"tool_missing": {"on": true, "cap": 0.55}}}`;

const CLI_ACTOR = { label: "cli" } as const;

type Io = Pick<CommandIo, "out" | "err">;
const io: Io = stdio;

function readConfigFile(file: string): { ok: true; text: string } | { ok: false; message: string } {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return { ok: false, message: `${file} is not a file` };
    if (stat.size > MAX_CONFIG_BYTES)
      return { ok: false, message: `${file} is larger than ${MAX_CONFIG_BYTES / 1024} KB` };
    return { ok: true, text: fs.readFileSync(file, "utf8") };
  } catch (err) {
    return {
      ok: false,
      message: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message}`,
    };
  }
}

async function add(positionals: string[], values: { name?: string; default?: boolean }, out: Io): Promise<number> {
  if (positionals.length !== 1) {
    out.err(`verity config add: give exactly one config file\n\n${USAGE}`);
    return 2;
  }
  const [file] = positionals;
  const name = configNameField.safeParse(values.name ?? nameFromFileName(file) ?? "");
  if (!name.success) {
    out.err(`verity config add: --name: ${name.error.issues[0].message}`);
    return 2;
  }
  const text = readConfigFile(file);
  if (!text.ok) {
    out.err(`verity config add: ${text.message}`);
    return 1;
  }
  const doc = parseConfigDocument(text.text);
  if (!doc.ok) {
    out.err(`verity config add: invalid config ${file}: ${formatConfigIssues(doc.issues)}`);
    return 1;
  }
  const r = await withClient((c) =>
    addVerifierConfig({ name: name.data, config: doc.config, makeDefault: !!values.default }, CLI_ACTOR, c),
  );
  const c = r.config;
  const label = `${c.name} v${c.version} (${c.hash})`;
  if (r.status === "created") out.out(`stored ${label}${c.isDefault ? ", now the default" : ""}`);
  else out.out(`unchanged: this config is already stored as ${label}${r.defaultChanged ? ", now the default" : ""}`);
  return 0;
}

async function list(json: boolean, out: Io): Promise<number> {
  const configs = await withClient((c) => listStoredConfigs(c));
  if (json) {
    for (const c of configs) {
      out.out(
        JSON.stringify({
          name: c.name,
          version: c.version,
          hash: c.hash,
          default: c.isDefault,
          created_at: c.createdAt.toISOString(),
          created_by: c.createdBy?.email ?? null,
        }),
      );
    }
    return 0;
  }
  if (configs.length === 0)
    out.out("no stored configs: the built-in default config is used (store one with `verity config add FILE`)");
  for (const c of configs)
    out.out([`${c.name} v${c.version}`, c.hash, c.isDefault ? "default" : "", c.createdAt.toISOString()].join("\t"));
  return 0;
}

export async function run(argv: string[], out: Io = io): Promise<number> {
  const args = parseSubcommand(
    "config",
    USAGE,
    argv,
    { name: { type: "string" }, default: { type: "boolean" }, json: { type: "boolean" } },
    out,
  );
  if ("exit" in args) return args.exit;
  const { sub, values, positionals } = args;
  try {
    switch (sub) {
      case "add":
        if (values.json) {
          out.err(`verity config add: --json is an option of list\n\n${USAGE}`);
          return 2;
        }
        return await add(positionals, values, out);
      case "list":
        if (positionals.length || values.name !== undefined || values.default) {
          out.err(`verity config list: takes only --json\n\n${USAGE}`);
          return 2;
        }
        return await list(!!values.json, out);
      default:
        out.err(`verity config: unknown subcommand "${sub}"\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    out.err(`verity config: ${(err as Error).message}`);
    return 1;
  }
}
