import type { Io } from "@/lib/cli/command.ts";

/** An Io for running a command in a test: the lines it writes to out and to err are kept, in order. */
export function captureIo(stdout: NodeJS.WritableStream = process.stdout): { io: Io; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s) => void out.push(s), err: (s) => void err.push(s), stdout }, out, err };
}
