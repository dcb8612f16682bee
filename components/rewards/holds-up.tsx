// "How it holds up": on each run, the function's latest injection probe (overall and per injected line) and its latest
// retest, in words with n and intervals (lib/leaderboard/stability.ts describeRerun). Text only: the injected lines
// and every figure are rendered as text nodes.
import { Badge } from "@/components/ui/badge.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { Head, numeric, Table, Td } from "@/components/ui/table.tsx";
import type { DatedReport, HoldsUp } from "@/lib/leaderboard/reruns.ts";
import { describeRerun, type RerunSummary, type RerunWords } from "@/lib/leaderboard/stability.ts";

function Verdict({ s }: { s: RerunSummary }) {
  if (s.n === 0) return <Badge>no pairs</Badge>;
  return <Badge tone={s.moved ? "bad" : "good"}>{describeRerun(s).verdict}</Badge>;
}

function Heading({ what, r }: { what: string; r: DatedReport }) {
  return (
    <p className="flex flex-wrap items-center gap-2">
      <span className="font-medium">
        {what} #{r.rewardRunId}
      </span>
      <span className="text-fg-muted">
        v{r.version} · <DateTime value={r.startedAt} /> · {r.status} · pass at {r.threshold}
      </span>
      <Verdict s={r.overall} />
    </p>
  );
}

const WHAT = { probe: "Injection probe", retest: "Retest" } as const;

/** The overall figures in one sentence. */
const SENTENCE: Record<DatedReport["kind"], (o: RerunWords) => string> = {
  probe: (o) => `Overall: mean shift ${o.shift}; verdicts flipped ${o.flips}; mean |difference| ${o.mae}`,
  retest: (o) => `The two runs agree on ${o.agreement}; mean |difference| ${o.mae}; mean shift ${o.shift}`,
};

/** A report: its heading, its overall figures, and a probe's lines. */
function Report({ r }: { r: DatedReport }) {
  return (
    <div className="grid gap-1" data-testid={`${r.kind}-report`}>
      <Heading what={WHAT[r.kind]} r={r} />
      <p>
        {SENTENCE[r.kind](describeRerun(r.overall))}
        {r.overall.incomplete > 0 && <> · {r.overall.incomplete} incomplete</>}.
      </p>
      {r.lines.length > 0 && <Lines lines={r.lines} />}
    </div>
  );
}

function Lines({ lines }: { lines: DatedReport["lines"] }) {
  return (
    <Table>
      <Head cols={["Line", "Language", "Text", ...numeric("Mean shift", "Flipped"), "Verdict"]} />
      <tbody>
        {lines.map(({ line, summary }) => {
          const w = describeRerun(summary);
          return (
            <tr key={line.id}>
              <Td>{line.id}</Td>
              <Td>{line.language}</Td>
              <Td className="max-w-[28rem]">{line.text}</Td>
              <Td numeric>{summary.n ? w.shift : "—"}</Td>
              <Td numeric>{summary.n ? w.flips : "—"}</Td>
              <Td>
                <Verdict s={summary} />
              </Td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}

export function HoldsUpCard({ runs }: { runs: HoldsUp[] }) {
  if (runs.length === 0)
    return (
      <p className="p-3 text-[13px] text-fg-muted">
        No probe or retest yet: `verity reward probe NAME --run R` scores the run&apos;s audited rollouts with injected
        lines, `verity reward retest NAME --run R` scores them again.
      </p>
    );
  return (
    <ul className="grid gap-4 p-3 text-[13px]" aria-label="How it holds up">
      {runs.map((h) => (
        <li key={h.runId} className="grid gap-2" data-testid="holds-up-run">
          <h3 className="font-semibold">{h.runId}</h3>
          {h.probe ? <Report r={h.probe} /> : <p className="text-fg-muted">No injection probe on this run.</p>}
          {h.retest ? <Report r={h.retest} /> : <p className="text-fg-muted">No retest on this run.</p>}
        </li>
      ))}
    </ul>
  );
}
