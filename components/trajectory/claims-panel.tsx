import { JsonInline } from "@/components/trajectory/json-inline.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";

type Claims = {
  claimed_writes?: string[];
  mentioned?: { key: string; value?: unknown }[];
  forbidden_hits?: string[];
} | null;
type Mention = { key: string; expected?: unknown; hasExpected: boolean };

/**
 * What the reply claims against what the sandbox recorded. A claimed write with no executed write is an empty
 * promise and is shown in red; an executed write the reply does not mention is shown in amber.
 */
export function ClaimsPanel({
  claims,
  executed,
  mustMention,
  reasonsByKey,
  source,
}: {
  claims: Claims;
  executed: string[];
  mustMention: Mention[];
  reasonsByKey: Record<string, string>;
  source: string | null;
}) {
  const claimed = claims?.claimed_writes ?? [];
  const tools = [...new Set([...claimed, ...executed])].sort();
  const mentioned = new Map((claims?.mentioned ?? []).map((m) => [m.key, m]));
  return (
    <div>
      <p className="px-3 pt-2 text-[11px] text-fg-subtle">claims from: {source ?? "unknown"}</p>
      <Table>
        <thead>
          <tr>
            <Th>Write tool</Th>
            <Th>Claimed in reply</Th>
            <Th>In sandbox</Th>
            <Th />
          </tr>
        </thead>
        <tbody>
          {tools.length === 0 && (
            <tr>
              <Td className="text-fg-muted">No writes claimed or executed.</Td>
            </tr>
          )}
          {tools.map((t) => {
            const c = claimed.includes(t);
            const e = executed.includes(t);
            return (
              <tr key={t} className={c && !e ? "bg-bad-bg" : !c && e ? "bg-warn-bg" : undefined}>
                <Td className="font-mono text-[12px]">{t}</Td>
                <Td>{c ? "yes" : "no"}</Td>
                <Td>{e ? `yes (${executed.filter((x) => x === t).length}×)` : "no"}</Td>
                <Td>
                  {c && !e ? (
                    <Badge tone="bad">empty promise</Badge>
                  ) : !c && e ? (
                    <Badge tone="warn">not mentioned</Badge>
                  ) : null}
                </Td>
              </tr>
            );
          })}
        </tbody>
      </Table>
      <Table className="mt-2">
        <thead>
          <tr>
            <Th>Must mention</Th>
            <Th>Expected</Th>
            <Th>Reply says</Th>
            <Th />
          </tr>
        </thead>
        <tbody>
          {mustMention.length === 0 && (
            <tr>
              <Td className="text-fg-muted">The spec requires no mentions.</Td>
            </tr>
          )}
          {mustMention.map((m) => {
            const got = mentioned.get(m.key);
            const problem = reasonsByKey[m.key];
            return (
              <tr key={m.key} className={problem ? "bg-bad-bg" : undefined}>
                <Td className="font-mono text-[12px]">{m.key}</Td>
                <Td>
                  {m.hasExpected ? <JsonInline value={m.expected} /> : <span className="text-fg-subtle">any</span>}
                </Td>
                <Td>
                  {got ? (
                    "value" in got ? (
                      <JsonInline value={got.value} />
                    ) : (
                      "mentioned"
                    )
                  ) : (
                    <span className="text-fg-subtle">not mentioned</span>
                  )}
                </Td>
                <Td>{problem ? <Badge tone="bad">{problem}</Badge> : <Badge tone="good">ok</Badge>}</Td>
              </tr>
            );
          })}
        </tbody>
      </Table>
      {(claims?.forbidden_hits?.length ?? 0) > 0 && (
        <p className="px-3 py-2 text-[12px]">
          Forbidden expressions in the reply:{" "}
          {claims!.forbidden_hits!.map((f) => (
            <Badge key={f} tone="bad">
              {f}
            </Badge>
          ))}
        </p>
      )}
    </div>
  );
}
