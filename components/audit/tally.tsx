import { Stat } from "@/components/ui/card.tsx";
import { fmtInt } from "@/components/ui/format.ts";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import type { AdjudicationTally } from "@/lib/audit/adjudication-data.ts";
import { CAUSE_LABELS, DISAGREEMENT_CAUSES } from "@/lib/agreement/causes.ts";

/** The verdicts counted by cause, and by the guardrail they name split by cause. */
export function Tally({ tally }: { tally: AdjudicationTally }) {
  return (
    <div className="space-y-3 p-3" data-testid="tally">
      <div className="grid grid-cols-2 gap-2 md:grid-cols-6">
        <Stat label="Waiting" value={fmtInt(tally.pending)} hint={`${fmtInt(tally.total)} settled`} />
        {DISAGREEMENT_CAUSES.map((c) => (
          <Stat
            key={c}
            label={CAUSE_LABELS[c]}
            value={<span data-testid={`cause-${c}`}>{fmtInt(tally.byCause[c])}</span>}
          />
        ))}
      </div>
      {tally.byGuardrail.length > 0 && (
        <Table>
          <thead>
            <tr>
              <Th>Guardrail</Th>
              <Th numeric>Verdicts</Th>
              {DISAGREEMENT_CAUSES.map((c) => (
                <Th key={c} numeric>
                  {CAUSE_LABELS[c]}
                </Th>
              ))}
            </tr>
          </thead>
          <tbody>
            {tally.byGuardrail.map((g) => (
              <tr key={g.guardrail} data-testid={`tally-${g.guardrail || "none"}`}>
                <Td className="font-mono text-[12px]">{g.guardrail || "(none named)"}</Td>
                <Td numeric>{fmtInt(g.total)}</Td>
                {DISAGREEMENT_CAUSES.map((c) => (
                  <Td key={c} numeric>
                    {g.byCause[c] ? fmtInt(g.byCause[c]) : ""}
                  </Td>
                ))}
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </div>
  );
}
