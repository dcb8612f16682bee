// The one source of randomness of the shadow audit: a keyed hash, so every draw is reproducible from the batch's
// salt and independent of the order in which rows arrive. Pure (sha256 is deterministic; no clock, no state).
import { createHash } from "node:crypto";

/** What a draw decides; each purpose hashes in its own domain so the draws are independent of one another. */
export type HashDomain = "ticket" | "rollout" | "overlap" | "group" | "pair" | "side" | "near_tie";

const TWO_52 = 2 ** 52;

/**
 * A uniform number in [0, 1): the first 52 bits of sha256(salt ‖ 0x00 ‖ domain ‖ 0x00 ‖ id) divided by 2^52.
 * 52 bits (not 64) so the value is exactly representable as a double: `u < rate` then means the same thing in
 * JavaScript and in SQL, with no rounding at the boundary.
 */
export function uniformHash(salt: string, domain: HashDomain, id: string): number {
  const digest = createHash("sha256").update(`${salt}\u0000${domain}\u0000${id}`, "utf8").digest();
  return Number(digest.readBigUInt64BE(0) >> 12n) / TWO_52;
}

/** "sha256:<hex>" of UTF-8 text (the manifest's item-list hash). */
export function sha256Tag(text: string): string {
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}
