// Two leaderboard rows head to head: the paired differences with their intervals, the plain verdict, and the items
// where their verdicts differ — each with the human's verdict, both rewards and components, the rollout and its group —
// filtered by the side the human took.
import Link from "next/link";
import { Stat } from "@/components/ui/card.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { TrajectoryLink } from "@/components/ui/id-links.tsx";
import { groupHref } from "@/lib/ledger/group-address.ts";
import type { Side } from "@/lib/leaderboard/head-to-head.ts";
import { leaderboardQueryString, type LeaderboardQuery } from "@/lib/leaderboard/schema.ts";
import type { LeaderboardView } from "@/lib/leaderboard/view.ts";

/** Disagreements listed at once; the CSV and the API carry all of them. */
const SHOWN = 200;

type H2H = NonNullable<LeaderboardView["headToHead"]>;

const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(3)}`;
const iv = (i: { lower: number; upper: number } | null) =>
  i ? `95% CI ${signed(i.lower)} to ${signed(i.upper)}` : "no interval";

function Differences({ h }: { h: H2H }) {
  const too = h.tooFew ? " · too few to say" : "";
  return (
    <div className="grid grid-cols-1 gap-2 md:grid-cols-3">
      <Stat
        label="Agreement A − B"
        value={h.agreement ? <span data-testid="h2h-agreement">{signed(h.agreement.difference)}</span> : "no items"}
        hint={
          h.agreement &&
          `${iv(h.agreement.interval)} (Newcombe) · McNemar exact p = ${h.agreement.pValue.toPrecision(3)} · n = ${h.n}${too}`
        }
      />
      <Stat
        label="MAE A − B"
        value={h.mae ? signed(h.mae.estimate) : "not defined"}
        hint={h.mae && `${iv(h.mae)} (paired bootstrap) · negative: A is closer${too}`}
      />
      <Stat
        label="Spearman ρ A − B"
        value={h.spearman ? signed(h.spearman.estimate) : "not defined"}
        hint={h.spearman && `${iv(h.spearman)} (paired bootstrap)${too}`}
      />
    </div>
  );
}

function Components({ s }: { s: Side }) {
  const entries = Object.entries(s.components ?? {});
  if (entries.length === 0) return null;
  return (
    <span className="block text-[11px] text-fg-muted">
      {entries.map(([k, v]) => `${k} ${v.toFixed(2)}`).join(" · ")}
    </span>
  );
}

function SideCell({ s }: { s: Side }) {
  return (
    <Td numeric>
      {s.reward.toFixed(3)} <span className={s.pass ? "text-good" : "text-bad"}>{s.pass ? "pass" : "fail"}</span>
      <Components s={s} />
    </Td>
  );
}

function SideFilter({ h, q }: { h: H2H; q: LeaderboardQuery }) {
  const opts = [
    ["any", `all ${h.sides.a + h.sides.b}`],
    ["a", `the human sided with A (${h.sides.a})`],
    ["b", `the human sided with B (${h.sides.b})`],
  ] as const;
  return (
    <p className="my-2 flex flex-wrap gap-3 text-[12px]" data-testid="side-filter">
      {opts.map(([side, label]) =>
        q.side === side ? (
          <span key={side} className="font-semibold">
            {label}
          </span>
        ) : (
          <Link
            key={side}
            className="text-accent hover:underline"
            href={`/rewards/compare?${leaderboardQueryString(q, { side })}`}
          >
            {label}
          </Link>
        ),
      )}
    </p>
  );
}

export function HeadToHeadPanel({ h, q }: { h: H2H; q: LeaderboardQuery }) {
  const list = h.disagreements.slice(0, SHOWN);
  return (
    <div className="space-y-3 p-3">
      <p className="text-[13px]">
        A = <strong>{h.a.label}</strong>, B = <strong>{h.b.label}</strong>, on the {h.n} audited items both scored
        {h.onlyOne > 0 ? ` (${h.onlyOne} scored by one of them only, left out)` : ""}.
      </p>
      <p className="text-[14px] font-semibold" data-testid="h2h-verdict">
        {h.verdict.text}
      </p>
      <Differences h={h} />
      <SideFilter h={h} q={q} />
      {list.length === 0 ? (
        <p className="text-[12px] text-fg-muted">No disagreement here.</p>
      ) : (
        <Table>
          <thead>
            <tr>
              <Th>Rollout</Th>
              <Th>Group</Th>
              <Th numeric>Human</Th>
              <Th numeric>A: {h.a.label}</Th>
              <Th numeric>B: {h.b.label}</Th>
              <Th>Human sided with</Th>
            </tr>
          </thead>
          <tbody>
            {list.map((d) => (
              <tr key={d.itemId} data-testid="disagreement">
                <Td>
                  {d.place ? <TrajectoryLink id={d.place.trajectoryId} /> : d.rolloutId}
                  {d.place && <span className="block text-[11px] text-fg-muted">step {d.place.step}</span>}
                </Td>
                <Td>
                  {d.place?.groupId ? (
                    <Link
                      className="font-mono text-[12px] text-accent hover:underline"
                      href={groupHref(
                        { runId: d.place.runId, groupId: d.place.groupId, step: d.place.step },
                        d.place.trajectoryId,
                      )}
                    >
                      {d.place.groupId}
                    </Link>
                  ) : (
                    "—"
                  )}
                </Td>
                <Td numeric>
                  {d.human.reward.toFixed(3)}{" "}
                  <span className={d.human.verdict === "pass" ? "text-good" : "text-bad"}>{d.human.verdict}</span>
                </Td>
                <SideCell s={d.a} />
                <SideCell s={d.b} />
                <Td>{d.humanSide === "a" ? `A (${h.a.label})` : `B (${h.b.label})`}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {h.disagreements.length > SHOWN && (
        <p className="text-[12px] text-fg-muted">
          The first {SHOWN} of {h.disagreements.length}; the JSON download lists every one.
        </p>
      )}
    </div>
  );
}
