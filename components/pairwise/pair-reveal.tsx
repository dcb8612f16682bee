import { Badge } from "@/components/ui/badge.tsx";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import type { PairReveal } from "@/lib/pairwise/data.ts";

const num = (x: number | null, digits = 3) => (x === null ? "–" : x.toFixed(digits));
const signed = (x: number | null) => (x === null ? "–" : `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(3)}`);

const VERDICT: Record<PairReveal["order"]["verdict"], { text: string; tone: "good" | "bad" | "warn" | "neutral" }> = {
  agree: { text: "You agree with the ledger's order", tone: "good" },
  inversion: { text: "Inversion: you preferred the rollout the ledger rewards lower", tone: "bad" },
  tie: { text: "You called it a tie", tone: "neutral" },
  ledger_tie: { text: "The ledger gives both the same reward", tone: "neutral" },
  unscored: { text: "A rollout has no ledger reward", tone: "warn" },
};

/** After the judgement: both ledger rewards, their advantage in the group, and how the human's order compares. */
export function PairRevealView({ reveal }: { reveal: PairReveal }) {
  const v = VERDICT[reveal.order.verdict];
  const chosen = reveal.mine.preferredTrajectoryId;
  return (
    <div className="space-y-3" data-testid="pair-reveal">
      <p className="flex items-center gap-2" data-testid="pair-verdict" data-verdict={reveal.order.verdict}>
        <Badge tone={v.tone}>{v.text}</Badge>
        {reveal.order.gap !== null && <span className="text-fg-muted">reward gap {num(reveal.order.gap)}</span>}
      </p>
      <Table>
        <Head
          cols={[
            "Side",
            "Rollout",
            ...numeric("Ledger reward", "Advantage (r − group mean)", "Normalised (÷ group std)"),
            "Deciding guardrail",
            "Your choice",
          ]}
        />
        <tbody>
          {(
            [
              ["A (left)", reveal.left],
              ["B (right)", reveal.right],
            ] as const
          ).map(([label, s]) => (
            <tr key={label}>
              <Td>{label}</Td>
              <Td className="font-mono text-[12px]">{s.trajectoryId}</Td>
              <Td numeric data-testid="pair-ledger-reward">
                {num(s.reward)}
              </Td>
              <Td numeric>{signed(s.advantage)}</Td>
              <Td numeric>{signed(s.normalizedAdvantage)}</Td>
              <Td className="font-mono text-[12px]">{s.decidingGuardrail ?? "none"}</Td>
              <Td>{chosen === s.trajectoryId ? "preferred" : chosen === null ? "tie" : ""}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
      <p className="text-[12px] text-fg-muted">
        Group of {reveal.groupSize} scored rollouts · reason {reveal.mine.reason ?? "none given"}
        {reveal.mine.note ? ` · note: ${reveal.mine.note}` : ""}
      </p>
      {reveal.mine.excludedReason && (
        <p className="rounded border border-border bg-bg-subtle px-3 py-2" data-testid="excluded-note">
          Recorded, but not counted toward agreement: {reveal.mine.excludedReason} (only blind judgements count).
        </p>
      )}
    </div>
  );
}
