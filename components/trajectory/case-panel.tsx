import { JsonInline } from "@/components/trajectory/json-inline.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Head, Table, Td } from "@/components/ui/table.tsx";
import type { PointerRow } from "@/lib/ledger/spec-pointers.ts";

function Json({ value }: { value: unknown }) {
  return (
    <pre className="overflow-x-auto rounded bg-bg-subtle p-2 font-mono text-[11px] leading-snug">
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/**
 * The ticket, the environment snapshot (collapsible) and the spec, with every pointer next to its value. The
 * collapsibles carry data-section, which the reading keys of the review pages open and close.
 */
export function CasePanel({
  ticket,
  snapshot,
  spec,
  pointers,
}: {
  ticket: unknown;
  snapshot: unknown;
  spec: unknown;
  pointers: PointerRow[];
}) {
  const t = ticket as { message?: string; id?: string; category?: string; customer_id?: string };
  return (
    <div className="space-y-2 p-3">
      <div>
        <div className="text-[11px] uppercase tracking-wide text-fg-subtle">Ticket {t.id}</div>
        <p className="whitespace-pre-wrap">{t.message}</p>
      </div>
      <details data-section="snapshot">
        <summary className="cursor-pointer text-[12px] font-medium">Environment snapshot</summary>
        <Json value={snapshot} />
      </details>
      <div>
        <div className="mb-1 text-[12px] font-medium">Spec pointers</div>
        <Table>
          <Head cols={["Field", "Pointer", "Resolves to"]} />
          <tbody>
            {pointers.map((p) => (
              <tr key={p.field}>
                <Td className="font-mono text-[12px]">{p.field}</Td>
                <Td className="font-mono text-[12px]">{p.pointer}</Td>
                <Td>{p.resolved ? <JsonInline value={p.value} /> : <Badge tone="bad">does not resolve</Badge>}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      </div>
      <details data-section="spec">
        <summary className="cursor-pointer text-[12px] font-medium">Verifier spec</summary>
        <Json value={spec} />
      </details>
    </div>
  );
}
