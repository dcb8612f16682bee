import { LedgerReasons } from "@/components/review/comparison.tsx";
import { RolloutOutcome } from "@/components/review/rollout-context.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { TrajectoryLink } from "@/components/ui/id-links.tsx";
import { Head, Table, Td, Th } from "@/components/ui/table.tsx";
import type { PairCase, PairCaseSide } from "@/lib/pairwise/report-loaders.ts";
import type { LedgerSide } from "@/lib/review/data.ts";
import { DIMENSIONS } from "@/lib/verifier/codes.ts";

const num = (x: number | null) => (x === null ? "–" : x.toFixed(3));

/** Both rollouts' ledger entries in one table: reward, raw reward, the five sub-scores, guardrails. */
export function PairLedgerTable({ c }: { c: PairCase }) {
  const cols: [string, PairCaseSide, LedgerSide][] = [
    ["A", c.a, c.a.reviewed],
    ["B", c.b, c.b.reviewed],
  ];
  const rescored = [c.a, c.b].some((s) => s.now);
  const row = (label: string, value: (l: LedgerSide) => string) => (
    <tr key={label}>
      <Td>{label}</Td>
      {cols.map(([k, s, l]) => (
        <Td key={k} numeric className="font-mono text-[12px]">
          {value(l)}
          {s.now && value(s.now) !== value(l) ? ` → ${value(s.now)} now` : ""}
        </Td>
      ))}
    </tr>
  );
  return (
    <>
      <Table>
        <thead>
          <tr>
            <Th>Ledger{rescored ? " (as reviewed → now)" : ""}</Th>
            {cols.map(([k, s]) => (
              <Th key={k} numeric>
                {k} · <TrajectoryLink id={s.rollout.trajectoryId} /> {s.shownLeft ? "(shown left)" : "(shown right)"}
              </Th>
            ))}
          </tr>
        </thead>
        <tbody data-testid="pair-ledger">
          {row("reward", (l) => num(l.reward))}
          {row("raw reward", (l) => num(l.rawReward))}
          {DIMENSIONS.map((d) => row(d, (l) => num(l.subscores[d])))}
          {row("guardrails", (l) => (l.guardrails.length ? l.guardrails.join(", ") : "none"))}
          {row("deciding guardrail", (l) => l.decidingGuardrail ?? "none")}
        </tbody>
      </Table>
    </>
  );
}

const VERDICT_TEXT = {
  agree: "agrees with the ledger",
  inversion: "inversion",
  tie: "tie",
  ledger_tie: "the ledger scores both equal",
  unscored: "a reward is missing",
} as const;

/** Every current judgement of the pair with how it stands against the ledger's order (as reviewed). */
export function PairJudgements({ c }: { c: PairCase }) {
  return (
    <Table>
      <Head cols={["Annotator", "Preferred", "Against the ledger", "Reason", "Note", "When"]} />
      <tbody data-testid="pair-judgements">
        {c.judgements.map((j) => (
          <tr key={j.reviewId}>
            <Td>{j.reviewerEmail}</Td>
            <Td>
              {j.preferred} <span className="text-fg-muted">(chose {j.choice})</span>
            </Td>
            <Td>
              <Badge tone={j.order.verdict === "inversion" ? "bad" : j.order.verdict === "agree" ? "good" : "neutral"}>
                {VERDICT_TEXT[j.order.verdict]}
              </Badge>
              {j.excludedReason && <span className="ml-1 text-[11px] text-warn">not counted: {j.excludedReason}</span>}
            </Td>
            <Td>{j.reason ?? "–"}</Td>
            <Td className="text-[12px]">{j.note}</Td>
            <Td>
              <DateTime value={j.createdAt} />
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** Rollout A and rollout B side by side, each with the ledger's reasons. */
export function PairRollouts({ c }: { c: PairCase }) {
  return (
    <div className="grid gap-3 lg:grid-cols-2">
      {[c.a, c.b].map((s) => (
        <section key={s.label} data-testid={`pair-rollout-${s.label}`} className="min-w-0 space-y-3">
          <h2 className="text-[14px] font-semibold">
            {s.label} <TrajectoryLink id={s.rollout.trajectoryId} className="text-[11px] font-normal" />{" "}
            <span className="text-[12px] font-normal text-fg-muted">ledger reward {num(s.reviewed.reward)}</span>
          </h2>
          <RolloutOutcome view={s.rollout} />
          <div className="rounded-md border border-border">
            <LedgerReasons ledger={s.reviewed} />
          </div>
        </section>
      ))}
    </div>
  );
}
