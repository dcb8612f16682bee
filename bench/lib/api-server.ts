// A plain node:http server around the ingest route's own handler (lib/ingest/http.ts), for the benchmark: the
// request body streams from the socket into the same code as in Next, minus Next and token lookup. Serves one
// request, then prints its peak RSS and exits. Usage: node --import tsx bench/lib/api-server.ts DATABASE_URL
import http from "node:http";
import { Readable } from "node:stream";
import { handleIngestRequest } from "@/lib/ingest/http.ts";
import { bulkPool, closeBulkPool } from "@/lib/db/pool.ts";
import { afterWrite } from "@/lib/server/after-write.ts";

const url = process.argv[2];
const pool = bulkPool(url);
const server = http.createServer(async (req, res) => {
  const request = new Request(`http://localhost${req.url}`, {
    method: req.method,
    headers: req.headers as Record<string, string>,
    body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
    duplex: "half",
  } as RequestInit);
  const response = await handleIngestRequest(request, pool, { after: afterWrite(pool, { webhook: "background" }) });
  res.writeHead(response.status, { "content-type": "application/json" });
  res.end(await response.text());
  server.close();
  await closeBulkPool(url);
  process.stdout.write(`MAXRSS_KB ${process.resourceUsage().maxRSS}\n`);
});
// Node ends a request that takes longer than requestTimeout (300 s by default) to arrive; with backpressure a large
// body arrives only as fast as it is ingested. `next start` keeps the default (see docs/ingest.md); the benchmark
// measures throughput, so it lifts the limit.
server.requestTimeout = 0;
server.listen(0, "127.0.0.1", () => process.stdout.write(`PORT ${(server.address() as { port: number }).port}\n`));
