// The counts at the end of a Python unittest run ("Ran 12 tests in 3.2s" then "OK" or "FAILED (failures=1,
// errors=2, skipped=1)"), for npm test's "N passed, N failed" line. Read from the summary rather than the per-test
// lines, which anything a test prints to stderr can split.

export type UnittestCounts = { passed: number; failed: number; skipped: number };

/** null when the output has no summary (the run crashed before it ended). */
export function unittestCounts(output: string): UnittestCounts | null {
  const ran = /^Ran (\d+) tests? in /m.exec(output);
  if (!ran) return null;
  const total = Number(ran[1]);
  const verdict = /^(OK|FAILED)(?: \(([^)]*)\))?\s*$/m.exec(output.slice(ran.index));
  if (!verdict) return null;
  const n: Record<string, number> = {};
  for (const part of (verdict[2] ?? "").split(",")) {
    const m = /^\s*([a-z ]+)=(\d+)\s*$/.exec(part);
    if (m) n[m[1]] = Number(m[2]);
  }
  const failed = (n.failures ?? 0) + (n.errors ?? 0) + (n["unexpected successes"] ?? 0);
  const skipped = n.skipped ?? 0;
  return { passed: total - failed - skipped, failed, skipped };
}
