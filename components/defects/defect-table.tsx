import Link from "next/link";
import { DefectFixForm } from "@/components/defects/fix-form.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { Head, Table, Td } from "@/components/ui/table.tsx";
import { DEFECT_KIND_LABELS } from "@/lib/defects/causes.ts";
import type { DefectRow } from "@/lib/defects/data.ts";

const TONE = { open: "warn", fixed: "accent", verified: "good" } as const;

/** The defects list: what is wrong (a case's spec or a guardrail's rule), its items, its fix and its state. */
export function DefectTable({ rows, canFix }: { rows: DefectRow[]; canFix: boolean }) {
  return (
    <Table>
      <Head cols={["Defect", "Kind", "Case / guardrail", "Status", "Items", "Fix", "Opened"]} />
      <tbody>
        {rows.map((d) => (
          <tr key={`${d.runId}/${d.id}`} data-testid="defect-row">
            <Td>
              #{d.id.toString()} <span className="text-fg-muted">· {d.runId}</span>
            </Td>
            <Td>{DEFECT_KIND_LABELS[d.cause]}</Td>
            <Td>
              {d.ticketId && (
                <Link
                  className="font-mono text-accent hover:underline"
                  href={`/cases/${encodeURIComponent(d.ticketId)}`}
                >
                  {d.ticketId}
                </Link>
              )}
              {d.ticketId && d.guardrail ? " · " : ""}
              {d.guardrail && <span className="font-mono">{d.guardrail}</span>}
              {!d.ticketId && !d.guardrail && <span className="text-fg-muted">no guardrail named</span>}
            </Td>
            <Td>
              <Badge tone={TONE[d.status]}>{d.status}</Badge>
            </Td>
            <Td>
              {d.items.map((i, n) => (
                <span key={i.itemId.toString()}>
                  {n > 0 && ", "}
                  <Link className="text-accent hover:underline" href={`/audit/adjudication?item=${i.itemId}`}>
                    #{i.itemId.toString()}
                  </Link>
                </span>
              ))}
            </Td>
            <Td>
              {d.fixKind ? (
                <span title={d.fixRef ?? ""}>
                  {d.fixKind === "case_version" ? `case version ${d.fixRef}` : `config ${d.fixRef?.slice(0, 12)}`}
                  {d.verifiedAt && (
                    <>
                      {" "}
                      · verified <DateTime value={d.verifiedAt} />
                    </>
                  )}
                </span>
              ) : canFix ? (
                <DefectFixForm runId={d.runId} defectId={d.id.toString()} spec={d.cause === "spec_wrong"} />
              ) : (
                <span className="text-fg-muted">not fixed</span>
              )}
            </Td>
            <Td>
              <DateTime value={d.createdAt} /> <span className="text-fg-muted">{d.openedBy}</span>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
