// The console's HTTP server for `npm start` and the end-to-end tests: Next.js's request handler (the production
// build) behind a listener that records each connection's own address in the request before Next sees it
// (lib/auth/peer-address.ts). `next start` cannot: it keeps an X-Forwarded-For the client wrote itself, which would let
// a client without a proxy choose its address for the sign-in limit and the activity log. `--port N` (default PORT).
import { createServer } from "node:http";
import next from "next";
import { trustedProxyList } from "@/lib/auth/client-address.ts";
import { recordPeer } from "@/lib/auth/peer-address.ts";
import { env } from "@/lib/env.ts";

async function main(): Promise<void> {
  const e = env();
  const at = process.argv.indexOf("--port");
  const port = at > 0 ? Number(process.argv[at + 1]) : e.PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--port must be a port number, not ${port}`);
  const trusted = trustedProxyList(e.VERITY_TRUSTED_PROXIES);
  const app = next({ dev: false, port, hostname: "localhost" });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = createServer((req, res) => {
    recordPeer(req.headers, req.socket.remoteAddress, trusted);
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, resolve));
  process.stdout.write(`Ready on http://localhost:${port}\n`);
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`verity serve: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
