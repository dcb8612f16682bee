import { spawn } from "node:child_process";
import type { Io } from "@/lib/cli/command.ts";

/** An Io for running a command in a test: the lines it writes to out and to err are kept, in order. */
export function captureIo(stdout: NodeJS.WritableStream = process.stdout): { io: Io; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s) => void out.push(s), err: (s) => void err.push(s), stdout }, out, err };
}

/** `verity <args>` as a child process with `env` over this process's environment: its exit code and what it wrote. */
export function runVerity(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bin/verity.ts", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
