// What `verity ingest` and `verity import jsonl` share around the ingest itself: the input (a file, inflated as it
// streams when gzip, or standard input), the progress line, the --rejects file, the bulk database, and the end: the
// summary as the last stdout line and the exit status.
import fs from "node:fs";
import type pg from "pg";
import type { Io } from "@/lib/cli/command.ts";
import { env } from "@/lib/env.ts";
import { isGzipFile, openInputFile } from "@/lib/ingest/content-encoding.ts";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import type { IngestOptions } from "@/lib/ingest/ingest.ts";
import { formatProgress, ProgressLine } from "@/lib/ingest/progress.ts";

export type LoadFlags = { file: string; rejects?: string; progress: "on" | "off" | "auto" };

/** What the loader hands the command's ingest: the input and the progress and reject hooks. */
export type LoadHooks = {
  source: AsyncIterable<Uint8Array | string>;
  hooks: Pick<IngestOptions, "onProgress" | "onReject">;
};

/**
 * The input's size in bytes (null for standard input), or null with `readable: false` when it cannot be read.
 * `mustRead`: check read access, not only that the file is there.
 */
export function inputSize(file: string, mustRead: boolean): { readable: boolean; bytes: number | null } {
  if (file === "-") return { readable: true, bytes: null };
  try {
    if (mustRead) fs.accessSync(file, fs.constants.R_OK);
    return { readable: true, bytes: fs.statSync(file).size };
  } catch {
    return { readable: false, bytes: null };
  }
}

/**
 * Runs `load` on the bulk database with the input as a stream and the hooks of the progress line (drawn on `stderr`
 * when asked for, or when it is a terminal) and the --rejects file (written with back-pressure). Returns what `load`
 * returned and the seconds it took.
 */
export async function loadFile<S>(
  flags: LoadFlags,
  totalBytes: number | null,
  stderr: NodeJS.WriteStream,
  load: (pool: pg.Pool, input: LoadHooks) => Promise<S>,
): Promise<{ summary: S; secs: number }> {
  const fromStdin = flags.file === "-";
  const rejects = flags.rejects ? fs.createWriteStream(flags.rejects) : null;
  const showProgress = flags.progress === "on" || (flags.progress === "auto" && !!stderr.isTTY);
  const bar = showProgress ? new ProgressLine(stderr) : null;
  // Bytes of the decompressed lines: the file's size is a fraction only for an uncompressed file.
  const sizeKnown = !fromStdin && !isGzipFile(flags.file) ? totalBytes : null;
  let started = Date.now();
  const summary = await withBulkDatabase(async (pool) => {
    started = Date.now();
    // A gzip file is inflated as it streams, up to the cap on inflated bytes (a bomb stops there).
    const source = fromStdin ? process.stdin : openInputFile(flags.file, env().VERITY_MAX_INFLATED_BYTES);
    return load(pool, {
      source,
      hooks: {
        onProgress: (p) =>
          bar?.update(
            formatProgress({
              lines: p.committedLine,
              bytes: p.bytes,
              totalBytes: sizeKnown,
              elapsedMs: Date.now() - started,
              rejected: p.rejected,
            }),
          ),
        onReject: rejects
          ? async (r) => {
              if (!rejects.write(JSON.stringify(r) + "\n"))
                await new Promise<void>((res) => rejects.once("drain", () => res()));
            }
          : undefined,
      },
    });
  });
  bar?.done();
  if (rejects) await new Promise<void>((res) => rejects.end(() => res()));
  return { summary, secs: (Date.now() - started) / 1000 };
}

/**
 * The end of a loading command: its error on stderr when it stopped early, the summary as the last stdout line, and
 * the exit status: 3 stopped early, 1 lines rejected under --strict, else 0.
 */
export function loadExit(
  command: string,
  summary: { ok: boolean; error?: string; rejected: number },
  strict: boolean,
  io: Pick<Io, "out" | "err">,
): 0 | 1 | 3 {
  if (!summary.ok) io.err(`verity ${command}: ${summary.error}`);
  io.out(JSON.stringify(summary));
  if (!summary.ok) return 3;
  return strict && summary.rejected > 0 ? 1 : 0;
}
