#!/usr/bin/env -S npx tsx
// The `verity` command line: `npm run -s verity -- <command> [args]`. Thin: each command lives in lib/cli/.
const commands: Record<string, () => Promise<{ run: (argv: string[]) => Promise<number> }>> = {
  score: () => import("@/lib/cli/score.ts"),
  user: () => import("@/lib/cli/user.ts"),
  ingest: () => import("@/lib/cli/ingest.ts"),
  import: () => import("@/lib/cli/import.ts"),
  export: () => import("@/lib/cli/export.ts"),
  rescore: () => import("@/lib/cli/rescore.ts"),
  sample: () => import("@/lib/cli/sample.ts"),
  demo: () => import("@/lib/cli/demo.ts"),
  agreement: () => import("@/lib/cli/agreement.ts"),
  clusters: () => import("@/lib/cli/clusters.ts"),
  config: () => import("@/lib/cli/config.ts"),
  token: () => import("@/lib/cli/token.ts"),
  run: () => import("@/lib/cli/run.ts"),
  case: () => import("@/lib/cli/case.ts"),
  gate: () => import("@/lib/cli/gate.ts"),
  db: () => import("@/lib/cli/db.ts"),
  reward: () => import("@/lib/cli/reward.ts"),
};

const usage = `usage: verity <command> [options]

commands:
${Object.keys(commands)
  .map((c) => `  ${c}`)
  .join("\n")}

Run "verity <command> --help" for a command's options.`;

async function main(): Promise<number> {
  const [name, ...rest] = process.argv.slice(2);
  if (!name || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(usage + "\n");
    return name ? 0 : 2;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`verity: unknown command "${name}"\n\n${usage}\n`);
    return 2;
  }
  const mod = await load();
  return mod.run(rest);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`verity: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
