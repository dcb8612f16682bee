// A second console for end-to-end specs that need settings the shared one must not have (OIDC on, say): the same
// production build served by bin/serve.ts on its own port, against the spec's database, stopped by the spec.
import { spawn } from "node:child_process";
import net from "node:net";

export type ConsoleProcess = { origin: string; port: number; stop(): Promise<void> };

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

/** Starts the console on `port` with `env` over the current environment, and waits until /api/health answers. */
export async function startConsole(port: number, env: Record<string, string>): Promise<ConsoleProcess> {
  const child = spawn("npx", ["tsx", "bin/serve.ts", "--port", String(port)], {
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env, NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const stop = async () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      return; // already gone
    }
    await exited;
  };
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`${origin}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { origin, port, stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the console on port ${port} did not become healthy`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}
