// What every `verity` command shares: where it writes, and how it reads its flags.
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { z } from "zod";
import { zodIssues } from "@/lib/verifier/schema.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** A command's output: lines to stdout and stderr, and stdout as a stream for commands that stream NDJSON. */
export type Io = { out: (s: string) => void; err: (s: string) => void; stdout: NodeJS.WritableStream };

export const stdio: Io = {
  out: (s) => process.stdout.write(s + "\n"),
  err: (s) => process.stderr.write(s + "\n"),
  stdout: process.stdout,
};

/**
 * The options of a command's flags as parseArgs takes them: `strings` take a value (`--run R`), `switches` none
 * (`--json`). A flag given several times (`multiple`) is added to what this returns.
 */
export function flagSpec<const S extends string, const B extends string = never>(
  strings: readonly S[],
  switches: readonly B[] = [],
): { [K in S]: { type: "string" } } & { [K in B]: { type: "boolean" } } {
  const spec: Record<string, { type: "string" | "boolean" }> = {};
  for (const s of strings) spec[s] = { type: "string" };
  for (const b of switches) spec[b] = { type: "boolean" };
  return spec as { [K in S]: { type: "string" } } & { [K in B]: { type: "boolean" } };
}

type Flags<O extends Options> = ReturnType<typeof parseArgs<{ options: O; strict: true }>>["values"];

type Read<O extends Options> = { values: Flags<O>; positionals: string[] } | { help: true } | { message: string };

/** The one reading of a command line: its flags (`--help`/`-h` added) and, when allowed, its positional arguments. */
function readArgs<O extends Options>(argv: string[], options: O, allowPositionals: boolean): Read<O> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals,
      options: { ...options, help: { type: "boolean", short: "h" } },
      strict: true,
    }) as { values: Flags<O> & { help?: boolean }; positionals: string[] };
    return values.help ? { help: true } : { values, positionals };
  } catch (err) {
    return { message: (err as Error).message };
  }
}

/**
 * Reads a command's flags (no positional arguments; `--help`/`-h` is added). An unknown or malformed flag prints the
 * parser's message with the usage and gives exit code 2; `--help` prints the usage and gives 0.
 */
export function parseFlags<const O extends Options>(
  command: string,
  usage: string,
  argv: string[],
  options: O,
  io: Pick<Io, "out" | "err">,
): { values: Flags<O> } | { exit: 0 | 2 } {
  const read = readOrExit(readArgs(argv, options, false), command, usage, io);
  return "exit" in read ? read : { values: read.values };
}

/** A command line read, or the exit of one that was not: its message and the usage (2), or the usage for --help (0). */
function readOrExit<O extends Options>(
  read: Read<O>,
  command: string,
  usage: string,
  io: Pick<Io, "out" | "err">,
): { values: Flags<O>; positionals: string[] } | { exit: 0 | 2 } {
  if ("message" in read) {
    io.err(`verity ${command}: ${read.message}\n\n${usage}`);
    return { exit: 2 };
  }
  if ("help" in read) {
    io.out(usage);
    return { exit: 0 };
  }
  return read;
}

/**
 * Reads a command with subcommands (`verity case revise …`): the subcommand first (none: the usage, exit 2; help:
 * the usage, exit 0), then its flags and positional arguments as parseFlags reads flags. `positionals: false`
 * refuses positional arguments as the parser does.
 */
export function parseSubcommand<const O extends Options>(
  command: string,
  usage: string,
  argv: string[],
  options: O,
  io: Pick<Io, "out" | "err">,
  positionals = true,
): { sub: string; values: Flags<O>; positionals: string[] } | { exit: 0 | 2 } {
  const [sub, ...rest] = argv;
  if (!sub || sub === "--help" || sub === "-h" || sub === "help") {
    io.out(usage);
    return { exit: sub ? 0 : 2 };
  }
  const read = readOrExit(readArgs(rest, options, positionals), command, usage, io);
  return "exit" in read ? read : { sub, ...read };
}

/** A file command's arguments: its options, or why not (`help`: --help was asked for). */
export type FileArgs<T> = { ok: true; opts: T } | { ok: false; message: string; help?: boolean };

/**
 * Reads a command that takes one input (a file, or - for standard input) and flags, through its zod schema:
 * `input` maps the flags and the positional onto the schema's fields; `positional` names the schema's field for it
 * (an issue there is printed without a flag name); `one` is what the command takes one of ("one input at a time").
 */
export function parseFileArgs<const O extends Options, T>(
  argv: string[],
  options: O,
  spec: {
    one: string;
    positional: string;
    schema: z.ZodType<T>;
    input: (values: Flags<O>, positional: string) => Record<string, unknown>;
  },
): FileArgs<T> {
  const read = readArgs(argv, options, true);
  if ("message" in read) return { ok: false, message: read.message };
  if ("help" in read) return { ok: false, message: "", help: true };
  const { values, positionals } = read;
  if (positionals.length > 1)
    return { ok: false, message: `one ${spec.one} at a time (got ${positionals.join(", ")})` };
  const r = spec.schema.safeParse(spec.input(values, positionals[0] ?? ""));
  if (!r.success) return { ok: false, message: flagIssueMessage(zodIssues(r.error), spec.positional) };
  return { ok: true, opts: r.data };
}

/** The progress flags of a loading command: `--no-progress` off, `--progress` on, else on a terminal. */
export const progressFlags = {
  "no-progress": { type: "boolean" },
  progress: { type: "boolean" },
} as const;
export const progressOf = (v: { "no-progress"?: boolean; progress?: boolean }) =>
  v["no-progress"] ? "off" : v.progress ? "on" : "auto";

/**
 * A file command's answer to arguments it could not read: the usage for --help (exit 0), else the message and the
 * usage (exit 2). Null when the arguments were read.
 */
export function argsExit(
  args: FileArgs<unknown>,
  command: string,
  usage: string,
  io: Pick<Io, "out" | "err">,
): 0 | 2 | null {
  if (args.ok) return null;
  if (args.help) {
    io.out(usage);
    return 0;
  }
  io.err(`verity ${command}: ${args.message}\n\n${usage}`);
  return 2;
}

/**
 * A schema's issues as one flag-error line: "--batch: must be …; --run: …". An issue on `positional` (the command's
 * file argument) or on no path is printed without a flag name.
 */
export function flagIssueMessage(issues: readonly { path: string; message: string }[], positional: string): string {
  return issues.map((i) => (i.path && i.path !== positional ? `--${i.path}: ` : "") + i.message).join("; ");
}
