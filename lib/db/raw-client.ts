import "server-only";
import pg from "pg";

/**
 * A single pg client (not pooled) for a short sequence of statements: migrations, health checks, probes. A server that
 * goes away while the client waits between two statements (a restart, a fast shutdown, a terminated backend) sends
 * its reason to a client with no active query, which emits it as "error"; without a listener that is thrown and ends
 * the process. With one, the next statement fails with the reason instead, where the caller handles it.
 */
export function rawClient(config: pg.ClientConfig): pg.Client {
  const client = new pg.Client(config);
  client.on("error", () => undefined);
  return client;
}
