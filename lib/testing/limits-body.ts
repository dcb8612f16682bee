// A large NDJSON body with one line past each limit (lib/verifier/limits.ts), for the ingest tests that prove one
// bad line costs that line alone, through the CLI and the API.
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { MAX_DEPTH } from "@/lib/verifier/limits.ts";

export type LimitsBody = {
  text: string;
  lines: number;
  /** The line with a case whose env_snapshot is nested `nesting` levels deep, and where the depth check stops. */
  deep: { line: number; path: string };
  /** The line with a trajectory id of `idLength` characters. */
  longId: { line: number; length: number };
};

/**
 * `lines` lines of rollouts of run `run` (no case: stored unscored, the cheapest line to write), except one case
 * nested 10,000 levels deep and one rollout whose trajectory id has 3,000 characters.
 */
export function limitsBody(run: string, lines = 10_000, nesting = 10_000): LimitsBody {
  const deepLine = Math.floor(lines / 4);
  const longLine = Math.floor((lines * 3) / 4);
  const deepCase = JSON.stringify(caseLine(`${run}-T-DEEP`)).replace(
    '"env_snapshot":{',
    `"env_snapshot":{"x":${'{"a":'.repeat(nesting)}1${"}".repeat(nesting)},`,
  );
  const longId = "L".repeat(3000);
  const out: string[] = [];
  for (let n = 1; n <= lines; n++) {
    if (n === deepLine) out.push(deepCase);
    else {
      const id = n === longLine ? longId : `${run}/${n}`;
      out.push(JSON.stringify(rolloutLine(id, `${run}-T-${n % 50}`, { run, step: n % 20 })));
    }
  }
  // Level 1 is the line, 2 env_snapshot, 3 x, then "a" until the first level past the limit.
  const path = ["env_snapshot", "x", ...Array(MAX_DEPTH - 2).fill("a")].join(".");
  return {
    text: out.join("\n") + "\n",
    lines,
    deep: { line: deepLine, path },
    longId: { line: longLine, length: longId.length },
  };
}
