// Secrets handed to browsers (session cookies) and machines (API tokens). Only their sha256 is ever stored, so a
// leaked database does not leak a usable credential. 32 random bytes make a brute-force preimage search hopeless,
// which is why a fast hash (not scrypt) is right here.
import "server-only";
import { createHash, randomBytes } from "node:crypto";

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** A new session: the cookie value and the id stored for it. */
export function newSessionToken(): { token: string; id: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, id: sha256Hex(token) };
}

const API_TOKEN = /^vty_([a-z0-9]{8})_([A-Za-z0-9_-]{43})$/;

/** A new API token `vty_<prefix>_<secret>`: the prefix is shown in lists to tell tokens apart, the secret never. */
export function newApiToken(): { token: string; prefix: string; hash: string } {
  const prefix = randomBytes(4).toString("hex");
  const token = `vty_${prefix}_${randomBytes(32).toString("base64url")}`;
  return { token, prefix, hash: sha256Hex(token) };
}

/** The stored hash for a presented token, or null when it is not shaped like one (no database lookup needed). */
export function apiTokenHash(presented: string): string | null {
  return API_TOKEN.test(presented) ? sha256Hex(presented) : null;
}
