// Password hashing with node:crypto's scrypt: a random 16-byte salt per hash, the parameters stored with the hash
// ("scrypt$N$r$p$salt$hash", base64url), and a timing-safe comparison. A hash never leaves this module in a log.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

// N = 2^15, r = 8: 32 MiB of memory and ~50-100 ms per hash on one core, the cost OWASP lists as the floor for
// scrypt. maxmem must exceed 128·N·r bytes, which Node's 32 MiB default does not leave room for.
const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_LEN = 32;
const SALT_LEN = 16;
const MAX_MEM = 128 * N * R * 2;

function scrypt(password: string, salt: Buffer, keyLen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password.normalize("NFKC"), salt, keyLen, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LEN);
  const key = await scrypt(password, salt, KEY_LEN, { N, r: R, p: P, maxmem: MAX_MEM });
  return ["scrypt", N, R, P, salt.toString("base64url"), key.toString("base64url")].join("$");
}

type Parsed = { n: number; r: number; p: number; salt: Buffer; key: Buffer };

function parse(stored: string): Parsed | null {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  // Bounds keep a tampered row from asking for gigabytes of memory.
  if (
    ![n, r, p].every(Number.isInteger) ||
    n < 2 ||
    n > 1 << 20 ||
    (n & (n - 1)) !== 0 ||
    r < 1 ||
    r > 32 ||
    p < 1 ||
    p > 16
  )
    return null;
  const salt = Buffer.from(parts[4], "base64url");
  const key = Buffer.from(parts[5], "base64url");
  if (salt.length < 8 || key.length < 16) return null;
  return { n, r, p, salt, key };
}

/** True when `password` matches `stored`. A malformed or missing hash never matches. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parsed = stored ? parse(stored) : null;
  if (!parsed) return false;
  const key = await scrypt(password, parsed.salt, parsed.key.length, {
    N: parsed.n,
    r: parsed.r,
    p: parsed.p,
    maxmem: 128 * parsed.n * parsed.r * 2,
  });
  return timingSafeEqual(key, parsed.key);
}

let dummy: Promise<string> | undefined;

/**
 * Spends the same time as a real verification, for sign-ins with an unknown email: the response time then does not
 * tell an attacker which emails have accounts.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummy ??= hashPassword("not a real password");
  await verifyPassword(password, await dummy);
  return false;
}
