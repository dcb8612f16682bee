// The progress line of `verity ingest` on a terminal: committed lines, rate, and — when the input's size is known —
// a bar and the time left. Formatting is pure (tested); the renderer only rewrites one line of stderr.

export type ProgressState = {
  lines: number;
  bytes: number;
  totalBytes: number | null;
  elapsedMs: number;
  rejected: number;
};

function fmtInt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

export function fmtDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

/** "[#####-----]  52%  120,000 lines  38,210 lines/s  ETA 12s  (3 rejected)"; no bar or ETA without a total. */
export function formatProgress(p: ProgressState, width = 24): string {
  const secs = p.elapsedMs / 1000;
  const rate = secs > 0 ? p.lines / secs : 0;
  const parts: string[] = [];
  if (p.totalBytes && p.totalBytes > 0) {
    const frac = Math.min(1, p.bytes / p.totalBytes);
    const filled = Math.round(frac * width);
    parts.push(`[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(Math.floor(frac * 100)).padStart(3)}%`);
  }
  parts.push(`${fmtInt(p.lines)} lines`, `${fmtInt(rate)} lines/s`);
  if (p.totalBytes && p.bytes > 0 && p.bytes < p.totalBytes) {
    const bytesPerSec = p.bytes / Math.max(secs, 1e-3);
    parts.push(`ETA ${fmtDuration((p.totalBytes - p.bytes) / bytesPerSec)}`);
  }
  if (p.rejected) parts.push(`(${fmtInt(p.rejected)} rejected)`);
  return parts.join("  ");
}

/** Rewrites one terminal line, at most every `everyMs`. */
export class ProgressLine {
  private last = 0;
  private shown = false;
  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly everyMs = 200,
  ) {}

  update(text: string, force = false): void {
    const now = Date.now();
    if (!force && now - this.last < this.everyMs) return;
    this.last = now;
    this.shown = true;
    this.stream.write(`\r\x1b[2K${text}`);
  }

  done(): void {
    if (this.shown) this.stream.write("\n");
  }
}
