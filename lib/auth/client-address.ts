// The client's network address, for the failed sign-in limit per address and the activity log.
//
// Next.js hands the application no socket. The console's listener (bin/serve.ts, lib/auth/peer-address.ts) makes the
// connection's address the last X-Forwarded-For entry of every request, and the whole header unless that connection
// came from a trusted proxy (VERITY_TRUSTED_PROXIES). Walking from the right, trusted proxies are skipped and the first
// other address is the client's: without trusted proxies that is the connection's own address, whatever the client
// wrote; behind them it is the address the nearest trusted proxy saw.
import { BlockList, isIP } from "node:net";
import { parseProxyEntry, splitProxyList } from "@/lib/env.ts";

const lists = new Map<string, BlockList>();

/** The trusted proxies as a matcher (built once per distinct value). Invalid entries are refused by lib/env.ts. */
export function trustedProxyList(spec: string | undefined): BlockList {
  const key = spec ?? "";
  let list = lists.get(key);
  if (!list) {
    list = new BlockList();
    for (const e of splitProxyList(key)) {
      const p = parseProxyEntry(e);
      if (!p) continue;
      if (p.prefix === undefined) list.addAddress(p.address, p.family);
      else list.addSubnet(p.address, p.prefix, p.family);
    }
    lists.set(key, list);
  }
  return list;
}

/**
 * One X-Forwarded-For entry as an address: trimmed, lower-cased, without brackets or a port ("[::1]:443",
 * "10.0.0.1:5000"), and IPv4-mapped IPv6 ("::ffff:10.0.0.1") as plain IPv4.
 */
export function normalizeAddress(raw: string): string {
  let a = raw.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(a)) a = a.slice(0, a.indexOf(":"));
  if (a.startsWith("::ffff:") && isIP(a.slice(7)) === 4) a = a.slice(7);
  return a.slice(0, 100);
}

/** Whether an address (normalised) is one of the trusted proxies. */
export function isTrustedAddress(address: string, trusted: BlockList): boolean {
  const v = isIP(address);
  return v !== 0 && trusted.check(address, v === 4 ? "ipv4" : "ipv6");
}

/** The X-Forwarded-For entries of a request, normalised, left to right. */
function forwardedHops(headers: Headers): string[] {
  return (headers.get("x-forwarded-for") ?? "").split(",").map(normalizeAddress).filter(Boolean);
}

/** Whether the request reached the console through a trusted proxy: its connection's address (the last hop) is one. */
export function fromTrustedProxy(headers: Headers, trusted: BlockList): boolean {
  const last = forwardedHops(headers).at(-1);
  return last !== undefined && isTrustedAddress(last, trusted);
}

/** The client's address as described above; "" when the request carries none (e.g. outside a server). */
export function clientAddress(headers: Headers, trusted: BlockList): string {
  const hops = forwardedHops(headers);
  for (let i = hops.length - 1; i > 0; i--) {
    if (!isTrustedAddress(hops[i], trusted)) return hops[i];
  }
  return hops[0] ?? "";
}
