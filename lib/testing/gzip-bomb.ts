// A real gzip bomb for tests, never held whole: `inflatedBytes` of zeros as concatenated gzip members of 16 MiB
// each (about 16 KB compressed: 10 GiB inflate from 10 MB), yielded one member at a time, counting what was read.
import { gzipSync } from "node:zlib";

const MEMBER_INFLATED = 16 * 2 ** 20;
let member: Buffer | undefined;

export type GzipBomb = {
  /** The compressed stream, produced as it is read. */
  chunks: AsyncGenerator<Uint8Array>;
  /** Compressed bytes handed to the reader so far. */
  read: () => number;
  /** Compressed bytes of the whole bomb. */
  compressedBytes: number;
};

export function gzipBomb(inflatedBytes: number): GzipBomb {
  member ??= gzipSync(Buffer.alloc(MEMBER_INFLATED), { level: 9 });
  const m = member;
  const members = Math.ceil(inflatedBytes / MEMBER_INFLATED);
  let read = 0;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < members; i++) {
      read += m.byteLength;
      yield m;
    }
  }
  return { chunks: chunks(), read: () => read, compressedBytes: members * m.byteLength };
}
