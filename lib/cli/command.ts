// What every `verity` command shares: where it writes, and how it reads its flags.
import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** A command's output: lines to stdout and stderr, and stdout as a stream for commands that stream NDJSON. */
export type Io = { out: (s: string) => void; err: (s: string) => void; stdout: NodeJS.WritableStream };

export const stdio: Io = {
  out: (s) => process.stdout.write(s + "\n"),
  err: (s) => process.stderr.write(s + "\n"),
  stdout: process.stdout,
};

type Flags<O extends Options> = ReturnType<typeof parseArgs<{ options: O; strict: true }>>["values"];

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
  let values: Flags<O> & { help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } },
      strict: true,
    }) as { values: Flags<O> & { help?: boolean } });
  } catch (err) {
    io.err(`verity ${command}: ${(err as Error).message}\n\n${usage}`);
    return { exit: 2 };
  }
  if (values.help) {
    io.out(usage);
    return { exit: 0 };
  }
  return { values };
}

/**
 * A schema's issues as one flag-error line: "--batch: must be …; --run: …". An issue on `positional` (the command's
 * file argument) or on no path is printed without a flag name.
 */
export function flagIssueMessage(issues: readonly { path: string; message: string }[], positional: string): string {
  return issues.map((i) => (i.path && i.path !== positional ? `--${i.path}: ` : "") + i.message).join("; ");
}
