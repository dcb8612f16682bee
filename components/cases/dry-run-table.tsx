// The diff of a dry run, one row per rollout: reward before and after, guardrails and reasons that appear (+) or
// disappear (−), and each counted human review before → after. The workbench's Try it and the admin's config dry run
// show the same table. Presentational.
import { fmtScore, fmtSetChange } from "@/components/ui/format.ts";
import { TrajectoryLink } from "@/components/ui/id-links.tsx";
import { Head, Table, Td } from "@/components/ui/table.tsx";
import type { RolloutDiff } from "@/lib/cases/dry-run.ts";

export function DryRunTable({ rows, selected }: { rows: RolloutDiff[]; selected?: string | null }) {
  return (
    <Table>
      <Head cols={["Rollout", "Reward before", "Reward after", "Guardrails", "Reasons", "Human reviews"]} />
      <tbody>
        {rows.map((d) => (
          <tr
            key={`${d.runId}/${d.rolloutId}`}
            data-selected={d.rolloutId === selected || undefined}
            className={d.rolloutId === selected ? "bg-bg-subtle" : undefined}
          >
            <Td className="font-mono text-[12px]">
              {d.runId} · <TrajectoryLink id={d.trajectoryId} />
            </Td>
            <Td>{d.before ? fmtScore(d.before.reward) : "—"}</Td>
            <Td className={d.rewardChanged ? "font-semibold" : undefined}>{fmtScore(d.after.reward)}</Td>
            <Td className="text-[12px]">{fmtSetChange(d.guardrails)}</Td>
            <Td className="text-[12px]">{fmtSetChange(d.reasons)}</Td>
            <Td className="text-[12px]">
              {d.reviews.length === 0
                ? "—"
                : d.reviews
                    .map(
                      (r) =>
                        `${r.reviewer}: ${r.agreedBefore === false ? "disagreed" : "agreed"} → ${r.agreesAfter ? "agrees" : "disagrees"}`,
                    )
                    .join("; ")}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
