// The built console as a child process, for the test runner and the specs: `next build` when its sources changed
// (the stamp of build-stamp.ts, so one `npm test` builds once for every part that needs it), then served as
// `npm start` serves it (bin/serve.ts) on a free port, which the owner can stop, kill (SIGKILL, no goodbye: what a
// crash looks like to a client) and start again on the same port (startConsoleServer); or a second console for an
// end-to-end spec that needs settings the shared one must not have (OIDC on, say), against the spec's database
// (startConsole). Test support: product code never imports it.
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { consoleNodeOptions } from "@/lib/server/child-process.ts";
import { buildIsCurrent, recordBuild } from "@/lib/server/build-stamp.ts";

/** Builds the console unless the build on disk is from the current sources. False if the build failed. */
export async function buildConsoleIfStale(env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<boolean> {
  if (buildIsCurrent()) return true;
  say("production build (next build)");
  const code = await new Promise<number>((resolve) => {
    const child = spawn("npx", ["next", "build"], { stdio: "inherit", env });
    child.on("close", (c) => resolve(c ?? 1));
  });
  if (code !== 0) return false;
  recordBuild();
  return true;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

export type ConsoleServer = {
  base: string;
  /** SIGKILL to the console's process group; resolves once it has exited. */
  kill: () => Promise<void>;
  /** Starts it again on the same port; resolves once /api/health answers 200. */
  start: () => Promise<void>;
  /** Stops it for good (SIGTERM). */
  stop: () => Promise<void>;
};

export type ConsoleProcess = { origin: string; port: number; stop(): Promise<void> };

async function waitHealthy(base: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error("the console exited while starting");
    const ok = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`the console did not become healthy within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** bin/serve.ts against `env.DATABASE_URL`, with the node flags `npm start` gives the console (bin/start.ts). */
export async function startConsoleServer(env: NodeJS.ProcessEnv): Promise<ConsoleServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const serverEnv = {
    ...env,
    NODE_OPTIONS: consoleNodeOptions(),
  };
  let child: ChildProcess | null = null;
  const signal = async (sig: NodeJS.Signals) => {
    const c = child;
    child = null;
    if (!c?.pid) return;
    try {
      process.kill(-c.pid, sig);
    } catch {
      /* already gone */
    }
    await exited(c);
  };
  const start = async () => {
    if (child) return;
    const c = spawnServe(port, serverEnv);
    child = c;
    await waitHealthy(base, c);
  };
  await start();
  return { base, kill: () => signal("SIGKILL"), start, stop: () => signal("SIGTERM") };
}

/** Starts the console on `port` with `env` over the current environment, and waits until /api/health answers. */
export async function startConsole(port: number, env: Record<string, string>): Promise<ConsoleProcess> {
  const child = spawnServe(port, { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env, NODE_ENV: "production" });
  const stop = async () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      return; // already gone
    }
    await exited(child);
  };
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(origin, child);
  } catch (e) {
    await stop();
    throw e;
  }
  return { origin, port, stop };
}

/** bin/serve.ts in its own process group (so a signal reaches the server and its children), stderr shown. */
function spawnServe(port: number, env: NodeJS.ProcessEnv): ChildProcess {
  const tsx = path.join(process.cwd(), "node_modules", ".bin", "tsx");
  return spawn(tsx, ["bin/serve.ts", "--port", String(port)], {
    env,
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
}

const exited = (c: ChildProcess) =>
  c.exitCode !== null || c.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => c.once("exit", () => resolve()));
