// What the ingest benches share around a process they time: the address of a database on the server, the process run
// under /usr/bin/time (wall seconds, peak RSS, CPU), and a quiet server before each timed path.
import { spawn } from "node:child_process";
import pg from "pg";

export function withDb(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs a command under /usr/bin/time to get its peak RSS; resolves with wall seconds, output and max RSS (MB). */
export function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv, onStdout?: (s: string) => void) {
  return new Promise<{ code: number; seconds: number; stdout: string; stderr: string; rssMb: number; cpu: number }>(
    (resolve) => {
      const started = process.hrtime.bigint();
      const child = spawn("/usr/bin/time", ["-f", "MAXRSS_KB %M CPU_S %U %S", cmd, ...args], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c) => {
        stdout += c;
        onStdout?.(String(c));
      });
      child.stderr.on("data", (c) => (stderr += c));
      child.on("close", (code) => {
        const kb = Number(/MAXRSS_KB (\d+)/.exec(stderr)?.[1] ?? 0);
        const cpu = /CPU_S ([\d.]+) ([\d.]+)/.exec(stderr);
        resolve({
          code: code ?? -1,
          seconds: Number(process.hrtime.bigint() - started) / 1e9,
          stdout,
          stderr,
          rssMb: kb / 1024,
          cpu: cpu ? Number(cpu[1]) + Number(cpu[2]) : NaN,
        });
      });
    },
  );
}

/**
 * Each path starts on a quiet server: the database the previous path wrote is vacuumed and analysed (else autovacuum
 * does it during the next path), and a checkpoint writes out its dirty pages (else the next path's writes pay for
 * evicting them). Not timed.
 */
export async function quiesce(url: string, written?: string): Promise<void> {
  if (written) {
    const w = new pg.Client({ connectionString: withDb(url, written) });
    await w.connect();
    await w.query("vacuum (analyze)");
    await w.end();
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query("checkpoint");
  await c.end();
}
