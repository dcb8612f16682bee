// Running a reward function version from the command line (`verity reward run|probe|retest`): start the run (or
// resume the interrupted one), progress on stderr, Ctrl-C cancels after the current page; a probe or a retest then
// prints how the reward held up (lib/leaderboard/reruns.ts), line by line.
import type pg from "pg";
import type { Io } from "@/lib/cli/command.ts";
import { loadRerunReport, type RerunReport } from "@/lib/leaderboard/reruns.ts";
import type { VersionRow } from "@/lib/rewards/data.ts";
import type { RunKind } from "@/lib/rewards/run-pages.ts";
import {
  cancelRewardRun,
  executeRewardRun,
  RewardRunRefused,
  startRewardRun,
  type RunProgress,
} from "@/lib/rewards/runs.ts";
import type { RunScope } from "@/lib/rewards/schema.ts";
import { describeScope } from "@/lib/rewards/scope.ts";
import { describeRerun, type RerunSummary } from "@/lib/leaderboard/stability.ts";

export const CLI_ACTOR = { label: "cli" } as const;

const KIND_WORDS: Record<RunKind, string> = { plain: "reward run", probe: "injection probe", retest: "retest" };

function progressLine(p: RunProgress): string {
  const eta = p.etaSeconds === null ? "" : `, ETA ${Math.round(p.etaSeconds)} s`;
  return `reward run #${p.id}: ${p.done}/${p.total} (${p.reused} reused, ${p.failed} failed), ${p.rate.toFixed(1)}/s${eta}`;
}

/**
 * Starts (or resumes) the run and executes it to its end; the last stdout line is the JSON summary. Exit code 0 when
 * it finished, 1 when refused, cancelled or failed.
 */
export async function startAndWatch(
  pool: pg.Pool,
  v: VersionRow,
  input: { runId: string; scope: RunScope; fresh: boolean; kind: RunKind },
  json: boolean,
  io: Io,
  command: string,
): Promise<{ code: number; id?: number }> {
  let started;
  try {
    started = await startRewardRun(pool, { versionId: v.id, ...input }, CLI_ACTOR);
  } catch (err) {
    if (!(err instanceof RewardRunRefused)) throw err;
    io.err(`verity reward ${command}: ${err.message}`);
    return { code: 1 };
  }
  io.err(
    `${started.resumed ? "resuming" : "started"} ${KIND_WORDS[input.kind]} #${started.id}: ${v.name} v${v.version} over ${describeScope(input.scope)} of ${input.runId} (${started.total} rollouts)`,
  );
  const onSigint = () => {
    io.err("cancelling after the current page…");
    void cancelRewardRun(pool, started.id, CLI_ACTOR);
  };
  process.once("SIGINT", onSigint);
  try {
    const p = await executeRewardRun(pool, started.id, {
      onProgress: (p) => (json ? io.out(JSON.stringify({ progress: p })) : io.err(progressLine(p))),
    });
    const report = input.kind === "plain" ? null : await loadRerunReport(pool, started.id);
    if (report && !json) printReport(report, io);
    io.out(
      JSON.stringify({
        reward_run: started.id,
        kind: input.kind,
        function: v.name,
        version: v.version,
        ...p,
        ...(report ? { report } : {}),
      }),
    );
    return { code: p.status === "done" ? 0 : 1, id: started.id };
  } finally {
    process.off("SIGINT", onSigint);
  }
}

function summaryLine(label: string, s: RerunSummary): string {
  if (s.n === 0) return `${label}: no pairs${s.incomplete ? ` (${s.incomplete} incomplete)` : ""}`;
  const w = describeRerun(s);
  return [
    `${label}: ${w.verdict.replace(/^moves/, "MOVES")}`,
    `mean shift ${w.shift}`,
    `verdicts flipped ${w.flips}`,
    `mean |difference| ${w.mae}`,
    ...(s.incomplete ? [`${s.incomplete} incomplete`] : []),
  ].join(" · ");
}

/** The report in words on stdout: overall, then each line of a probe. */
export function printReport(r: RerunReport, io: Io): void {
  const what = r.kind === "probe" ? "injection probe" : "retest";
  io.out(`${what} #${r.rewardRunId} (pass at ${r.threshold}): ${r.moved ? "the reward MOVES" : "the reward holds"}`);
  io.out(summaryLine("  overall", r.overall));
  for (const l of r.lines) io.out(summaryLine(`  ${l.line.id}`, l.summary));
}
