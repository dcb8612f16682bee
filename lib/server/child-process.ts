// The processes `npm start` runs (next build, the console's server, next dev): node itself on the script, so a
// signal reaches the process that handles it (no npx, shell or tsx layer between that could die and orphan it), each
// in a process group of its own, so stopping it stops whatever it started (next build's workers) as well.
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { createRequire } from "node:module";
import os from "node:os";

/**
 * Node's flags for the console (`npm start`, the end-to-end tests' console, the benchmarks' console): V8's young
 * generation at 64 MB semi-spaces, not the default 16 (nor the 8 the ingest CLI keeps for its memory,
 * lib/ingest/memory.ts). A browser page renders ~170 KB of HTML and its payload; with small semi-spaces the collector
 * ran every few requests and took 14 % of the console's CPU under 20 researchers. With 64 MB the console served
 * 2,856–2,876 of their requests a minute where it served 2,408–2,523 (docs/benchmarks.md, "Search"), for ~100 MB
 * more resident memory at its peak. An ingest through the console still forces its full collections (HeapBound).
 */
const CONSOLE_NODE_FLAGS = ["--max-semi-space-size=64"];

/** NODE_OPTIONS for the console's process: this process's own, and the console's flags. */
export const consoleNodeOptions = () => [process.env.NODE_OPTIONS, ...CONSOLE_NODE_FLAGS].filter(Boolean).join(" ");

const nextBin = () => createRequire(import.meta.url).resolve("next/dist/bin/next");

/** `next <args>` (build, dev) as a child of this process. */
export function spawnNext(args: string[], env: NodeJS.ProcessEnv, stdio: StdioOptions): ChildProcess {
  return spawn(process.execPath, [nextBin(), ...args], { env, stdio, detached: true });
}

/** A TypeScript entry point (bin/serve.ts) run by node with tsx's loader. */
export function spawnScript(script: string, args: string[], env: NodeJS.ProcessEnv, stdio: StdioOptions) {
  return spawn(process.execPath, ["--import", "tsx", script, ...args], { env, stdio, detached: true });
}

export const hasExited = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;

/** Resolves with the exit code once the child has exited (128 + n for a signal, as a shell reports it). */
export function exitOf(c: ChildProcess): Promise<number> {
  const code = (exit: number | null, signal: NodeJS.Signals | null) =>
    exit ?? (signal ? 128 + os.constants.signals[signal] : 1);
  if (hasExited(c)) return Promise.resolve(code(c.exitCode, c.signalCode));
  return new Promise((resolve) => c.once("exit", (exit, signal) => resolve(code(exit, signal))));
}

/**
 * Stops a child and its process group (SIGTERM to every member at once, SIGKILL to those left after `graceMs`);
 * resolves once the child has exited.
 * The console's server closes its connections on SIGTERM (bin/serve.ts); next build and next dev just end.
 */
export async function stopChild(c: ChildProcess | undefined, graceMs = 10_000): Promise<void> {
  if (!c?.pid || hasExited(c)) return;
  const exited = exitOf(c);
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-c.pid!, s);
    } catch {
      /* the group is gone */
    }
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}
