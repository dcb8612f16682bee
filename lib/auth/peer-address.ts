// The forwarding headers of a request as it arrives on the console's own socket (bin/serve.ts), before Next.js sees
// it. `next start` writes the connection's address into X-Forwarded-For only when the request has no such header, so
// a client talking to the console directly could name any address it liked — and its own X-Forwarded-Host and
// X-Forwarded-Proto would name the console's public address. Here the connection's address (the peer) always ends
// X-Forwarded-For: when the peer is a trusted proxy (VERITY_TRUSTED_PROXIES) it is appended, as a proxy appends what
// it saw, and the proxy's X-Forwarded-* are kept; otherwise the peer is the whole header and the client's own
// X-Forwarded-Host, -Proto and -Port are dropped. lib/auth/client-address.ts then walks X-Forwarded-For from the right.
import type { IncomingHttpHeaders } from "node:http";
import { isTrustedAddress, normalizeAddress } from "@/lib/auth/client-address.ts";
import type { BlockList } from "node:net";

const CLAIMS_OF_A_PROXY = ["x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "forwarded"] as const;

/** Rewrites `headers` in place for a request whose connection came from `peer` (socket.remoteAddress). */
export function recordPeer(headers: IncomingHttpHeaders, peer: string | undefined, trusted: BlockList): void {
  const address = peer ? normalizeAddress(peer) : "";
  if (address && isTrustedAddress(address, trusted)) {
    const before = [headers["x-forwarded-for"]].flat().filter(Boolean).join(", ");
    headers["x-forwarded-for"] = before ? `${before}, ${address}` : address;
    return;
  }
  for (const h of CLAIMS_OF_A_PROXY) delete headers[h];
  if (address) headers["x-forwarded-for"] = address;
  else delete headers["x-forwarded-for"];
}
