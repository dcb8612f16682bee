// `verity reward add FILE | list | show NAME | try NAME --rollout ID | run NAME --run R [scope] [--json] |
// probe NAME --run R [--sample N] | retest NAME --run R [--sample N] [--fresh] | compare --run R [--json]`: reward
// functions (docs/rewards.md, docs/leaderboard.md) from the command line. Versions and runs are recorded in the activity log as "cli".
import fs from "node:fs";
import { parseArgs } from "node:util";
import { clientOver } from "@/lib/db/client.ts";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import { type Io, flagIssueMessage, stdio } from "@/lib/cli/command.ts";
import { codeIssues } from "@/lib/rewards/code.ts";
import { findVersion, functionVersions, listRewardFunctions } from "@/lib/rewards/data.ts";
import { addRewardVersion } from "@/lib/rewards/mutations.ts";
import { listRewardRuns } from "@/lib/rewards/run-data.ts";
import {
  formatIssues,
  functionNameField,
  MAX_DOCUMENT_BYTES,
  parseVersionText,
  reasonField,
  rerunFlagsSchema,
  runFlagsSchema,
} from "@/lib/rewards/schema.ts";
import { CLI_ACTOR, startAndWatch } from "@/lib/cli/reward-runs.ts";
import { describeScope } from "@/lib/rewards/scope.ts";
import { exportGrader, importGrader, type Grader, type Unmapped } from "@/lib/rewards/interchange.ts";
import { tryVersion } from "@/lib/rewards/try-it.ts";
import { compare } from "@/lib/cli/reward-compare.ts";
import { zodIssues } from "@/lib/verifier/schema.ts";

const USAGE = `usage: verity reward <subcommand> [options]

subcommands:
  add FILE [--name NAME] [--reason TEXT]
                 store the reward function version in FILE (JSON: {"components": [...]}) as the next version of
                 NAME (default: the file name without .json); the same document again is reported unchanged
  list [--json]  the reward functions: name, latest version, kinds of component, runs
  show NAME [--json]
                 every version of NAME with its document, and its latest runs
  try NAME --rollout TRAJECTORY_ID [--version V] [--json]
                 the latest version (or V) on one rollout: each component's value, a judge's prompt and answer, a
                 code reward's stdout and stderr; stores nothing
  run NAME --run R [--from S --to S | --sample N --salt S | --batch B | --ticket T] [--fresh] [--version V] [--json]
                 runs the version over the run's steps (default: all), a reproducible sample, a shadow-audit batch's
                 items or one ticket; results with the same content are reused (--fresh computes them again), an
                 interrupted run of the same scope resumes; progress on stderr, Ctrl-C cancels; the last stdout line
                 is the JSON summary
  probe NAME --run R [--sample N] [--salt S] [--version V] [--json]
                 the injection probe: the run's audited rollouts (all, or a reproducible sample of N) scored as they
                 are and with each injected line appended to the final reply (English and Chinese); prints the mean
                 shift of the reward and the share of verdicts that flip, overall and per line, and whether it moves
  retest NAME --run R [--sample N] [--salt S] [--fresh] [--version V] [--json]
                 test–retest: the same rollouts scored again, nothing reused, each paired with its stored result
                 (--fresh: both sides scored now); prints the agreement of the two and the mean absolute difference

  compare --run R [--batch B] [--from S --to S] [--sort COLUMN] [--dir asc|desc] [--threshold ROW:T,...]
          [--a ROW --b ROW] [--json]
                 the reward leaderboard of the run's (or the batch's) audited items: the ledger's reward (*) and
                 every version with results on them, scored against the blind reviews (docs/leaderboard.md); rows
                 are "ledger" or a version id; --a/--b adds their head to head; --json prints the API's JSON

  import FILE [--name NAME] [--reason TEXT]
                 stores an OpenAI grader (string_check, score_model, python, or a multi whose calculate_output is a
                 weighted sum) as the next version of NAME; each part that does not map is named on stderr
  export NAME [--version V]
                 prints the version as an OpenAI grader JSON; each component that does not map is named on stderr

A component is one of verifier, format, exact_match, math, judge, code (docs/rewards.md).`;

const OPTIONS = {
  name: { type: "string" },
  reason: { type: "string" },
  json: { type: "boolean" },
  rollout: { type: "string" },
  version: { type: "string" },
  run: { type: "string" },
  from: { type: "string" },
  to: { type: "string" },
  sample: { type: "string" },
  salt: { type: "string" },
  batch: { type: "string" },
  ticket: { type: "string" },
  fresh: { type: "boolean" },
  sort: { type: "string" },
  dir: { type: "string" },
  threshold: { type: "string" },
  a: { type: "string" },
  b: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true; allowPositionals: true }>>["values"];

function versionFlag(v: string | undefined): number | undefined | null {
  if (v === undefined) return undefined;
  return /^[1-9]\d{0,8}$/.test(v) ? Number(v) : null;
}

function printUnmapped(unmapped: Unmapped[], io: Io): void {
  for (const u of unmapped) io.err(`not mapped: ${u.path ? `${u.path}: ` : ""}${u.what}: ${u.why}`);
}

/** `reward import`: the grader JSON in FILE becomes the document `add` stores. */
function gradersAsDocument(text: string, io: Io): string | null {
  let grader: Grader;
  try {
    grader = JSON.parse(text) as Grader;
  } catch (err) {
    io.err(`verity reward import: not valid JSON: ${(err as Error).message}`);
    return null;
  }
  if (!grader || typeof grader !== "object" || typeof grader.type !== "string") {
    io.err('verity reward import: not an OpenAI grader (no "type")');
    return null;
  }
  const r = importGrader(grader);
  printUnmapped(r.unmapped, io);
  if (!r.doc) {
    io.err("verity reward import: no part of the grader maps to a Verity component");
    return null;
  }
  return JSON.stringify(r.doc);
}

async function exportVersion(positionals: string[], values: Values, io: Io): Promise<number> {
  if (positionals.length !== 1) return usageError("export: name one reward function", io);
  const version = versionFlag(values.version);
  if (version === null) return usageError("export: --version: a version number", io);
  const v = await withBulkDatabase((pool) => findVersion(positionals[0], version, clientOver(pool)));
  if (!v) {
    io.err(`verity reward export: there is no reward function ${JSON.stringify(positionals[0])}`);
    return 1;
  }
  const r = exportGrader(v.doc, v.name);
  printUnmapped(r.unmapped, io);
  if (!r.grader) {
    io.err("verity reward export: no component maps to an OpenAI grader");
    return 1;
  }
  io.out(JSON.stringify(r.grader, null, 2));
  return 0;
}

async function add(positionals: string[], values: Values, io: Io, openai = false): Promise<number> {
  if (positionals.length !== 1) return usageError(`${openai ? "import" : "add"}: give exactly one file`, io);
  const [file] = positionals;
  const name = functionNameField.safeParse(values.name ?? file.replace(/^.*\//, "").replace(/\.json$/i, ""));
  if (!name.success) return usageError(`add: --name: ${name.error.issues[0].message}`, io);
  const reason = reasonField.safeParse(values.reason ?? "");
  if (!reason.success) return usageError(`add: --reason: ${reason.error.issues[0].message}`, io);
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_DOCUMENT_BYTES) throw new Error(`larger than ${MAX_DOCUMENT_BYTES / 1024} KB`);
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    io.err(`verity reward add: cannot read ${file}: ${(err as Error).message}`);
    return 1;
  }
  if (openai) {
    const converted = gradersAsDocument(text, io);
    if (converted === null) return 1;
    text = converted;
  }
  const doc = parseVersionText(text);
  if (!doc.ok) {
    io.err(`verity reward add: invalid reward function ${file}: ${formatIssues(doc.issues)}`);
    return 1;
  }
  const code = await codeIssues(doc.doc);
  if (code.issues.length) {
    io.err(`verity reward add: invalid reward function ${file}: ${formatIssues(code.issues)}`);
    return 1;
  }
  if (code.warning) io.err(`verity reward add: warning: ${code.warning}`);
  const r = await withBulkDatabase((pool) =>
    addRewardVersion({ name: name.data, doc: doc.doc, reason: reason.data }, CLI_ACTOR, clientOver(pool)),
  );
  const label = `${r.version.name} v${r.version.version} (${r.version.hash.slice(0, 12)})`;
  io.out(r.status === "created" ? `stored ${label}` : `unchanged: this document is already stored as ${label}`);
  return 0;
}

async function list(values: Values, io: Io): Promise<number> {
  const fns = await withBulkDatabase((pool) => listRewardFunctions(clientOver(pool)));
  if (values.json) {
    for (const f of fns)
      io.out(
        JSON.stringify({
          name: f.name,
          version: f.latest.version,
          hash: f.latest.hash,
          kinds: f.latest.kinds,
          versions: f.versions,
          runs: f.runs,
          created_at: f.latest.createdAt.toISOString(),
          created_by: f.latest.author,
        }),
      );
    return 0;
  }
  if (fns.length === 0) io.out("no reward functions: store one with `verity reward add FILE`");
  for (const f of fns)
    io.out([`${f.name} v${f.latest.version}`, f.latest.kinds.join("+"), `${f.runs} runs`].join("\t"));
  return 0;
}

async function show(positionals: string[], values: Values, io: Io): Promise<number> {
  if (positionals.length !== 1) return usageError("show: name one reward function", io);
  const found = await withBulkDatabase(async (pool) => {
    const versions = await functionVersions(positionals[0], clientOver(pool));
    return versions && { versions, runs: await listRewardRuns(pool, { functionName: positionals[0], limit: 10 }) };
  });
  if (!found) {
    io.err(`verity reward show: there is no reward function ${JSON.stringify(positionals[0])}`);
    return 1;
  }
  if (values.json) {
    io.out(JSON.stringify({ name: positionals[0], versions: found.versions, runs: found.runs }));
    return 0;
  }
  for (const v of found.versions) {
    io.out(
      `${v.name} v${v.version} (${v.hash}) by ${v.author ?? "cli"} at ${v.createdAt.toISOString()}${v.reason ? `: ${v.reason}` : ""}`,
    );
    io.out(JSON.stringify(v.doc, null, 2));
  }
  for (const r of found.runs)
    io.out(
      `run #${r.id} v${r.version} on ${r.runId}, ${describeScope(r.scope)}: ${r.status}${r.interrupted ? " (interrupted)" : ""} ${r.done}/${r.total}, ${r.failed} failed`,
    );
  return 0;
}

async function tryIt(positionals: string[], values: Values, io: Io): Promise<number> {
  if (positionals.length !== 1 || !values.rollout) return usageError("try: give NAME and --rollout TRAJECTORY_ID", io);
  const version = versionFlag(values.version);
  if (version === null) return usageError("try: --version: a version number", io);
  const r = await withBulkDatabase(async (pool) => {
    const v = await findVersion(positionals[0], version, clientOver(pool));
    if (!v)
      return {
        ok: false as const,
        error: `there is no reward function ${JSON.stringify(positionals[0])}${version ? ` v${version}` : ""}`,
      };
    return tryVersion(pool, v.doc, values.rollout!);
  });
  if (!r.ok) {
    io.err(`verity reward try: ${r.error}`);
    return 1;
  }
  if (values.json) {
    io.out(JSON.stringify({ rollout: r.rollout, ...r.outcome }));
    return 0;
  }
  const o = r.outcome;
  io.out(
    `${r.rollout.trajectoryId} (run ${r.rollout.runId}, step ${r.rollout.step}): ${o.status}${o.reward === null ? "" : `, reward ${o.reward}`}`,
  );
  for (const c of o.components) {
    io.out(`  ${c.name} × ${c.weight}: ${c.status === "ok" ? c.value : `${c.status}: ${c.error ?? ""}`}`);
    for (const [k, v] of Object.entries(c.detail ?? {}))
      io.out(`    ${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  }
  return 0;
}

async function runVersion(positionals: string[], values: Values, io: Io): Promise<number> {
  if (positionals.length !== 1) return usageError("run: name one reward function", io);
  const flags = runFlagsSchema.safeParse({
    run: values.run,
    from: values.from,
    to: values.to,
    sample: values.sample,
    salt: values.salt,
    batch: values.batch,
    ticket: values.ticket,
    fresh: values.fresh,
  });
  if (!flags.success) return usageError(`run: ${flagIssueMessage(zodIssues(flags.error), "")}`, io);
  return startVersion(positionals[0], values, { ...flags.data, kind: "plain" }, io, "run");
}

/** `probe` and `retest`: over the run's audited rollouts; scope flags other than --sample/--salt are refused. */
async function rerunVersion(kind: "probe" | "retest", positionals: string[], values: Values, io: Io): Promise<number> {
  if (positionals.length !== 1) return usageError(`${kind}: name one reward function`, io);
  const other = (["from", "to", "batch", "ticket", "rollout"] as const).find((k) => values[k] !== undefined);
  if (other) return usageError(`${kind}: --${other}: a ${kind} runs on the run's audited rollouts (--sample N)`, io);
  if (kind === "probe" && values.fresh)
    return usageError("probe: --fresh: a probe scores every rollout anew, the original and the probed", io);
  const flags = rerunFlagsSchema.safeParse({
    run: values.run,
    sample: values.sample,
    salt: values.salt,
    fresh: values.fresh,
  });
  if (!flags.success) return usageError(`${kind}: ${flagIssueMessage(zodIssues(flags.error), "")}`, io);
  return startVersion(positionals[0], values, { ...flags.data, kind }, io, kind);
}

async function startVersion(
  name: string,
  values: Values,
  input: Parameters<typeof startAndWatch>[2],
  io: Io,
  command: string,
): Promise<number> {
  const version = versionFlag(values.version);
  if (version === null) return usageError(`${command}: --version: a version number`, io);
  return withBulkDatabase(async (pool) => {
    const v = await findVersion(name, version, clientOver(pool));
    if (!v) {
      io.err(
        `verity reward ${command}: there is no reward function ${JSON.stringify(name)}${version ? ` v${version}` : ""}`,
      );
      return 1;
    }
    return (await startAndWatch(pool, v, input, !!values.json, io, command)).code;
  });
}

function usageError(message: string, io: Io): number {
  io.err(`verity reward ${message}\n\n${USAGE}`);
  return 2;
}

export async function run(argv: string[], io: Io = stdio): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === "--help" || sub === "-h" || sub === "help") {
    io.out(USAGE);
    return sub ? 0 : 2;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    return usageError(`${sub}: ${(err as Error).message}`, io);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const handlers: Record<string, (p: string[], v: Values, io: Io) => Promise<number>> = {
    add: (p, v, o) => add(p, v, o),
    import: (p, v, o) => add(p, v, o, true),
    export: exportVersion,
    list: (_p, v, o) => list(v, o),
    show,
    try: tryIt,
    run: runVersion,
    probe: (p, v, o) => rerunVersion("probe", p, v, o),
    retest: (p, v, o) => rerunVersion("retest", p, v, o),
    compare: async (p, v, o) => (p.length ? usageError("compare: takes no positional argument", o) : compare(v, o)),
  };
  const handler = handlers[sub];
  if (!handler) return usageError(`: unknown subcommand "${sub}"`, io);
  try {
    return await handler(positionals, values, io);
  } catch (err) {
    io.err(`verity reward ${sub}: ${(err as Error).message}`);
    return 1;
  }
}
