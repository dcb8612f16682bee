import type { ReactNode } from "react";
import { JsonInline } from "@/components/trajectory/json-inline.tsx";
import { ReasonList, type Reason } from "@/components/trajectory/reason-list.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { cn } from "@/components/ui/cn.ts";
import { fmtScore } from "@/components/ui/format.ts";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import type { Comparison } from "@/lib/review/compare.ts";
import type { HumanSide, LedgerSide } from "@/lib/review/data.ts";
import { DIMENSIONS, GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

export type HumanColumn = { label: string; side: HumanSide; comparison: Comparison };

const signed = (x: number | null) => (x === null ? "–" : `${x > 0 ? "+" : x < 0 ? "−" : "±"}${Math.abs(x).toFixed(3)}`);

/** A cell that differs from the ledger is marked (colour, and data-diff for tests and screen readers' sake). */
function Cell({ diff, children, numeric }: { diff: boolean; children: ReactNode; numeric?: boolean }) {
  return (
    <Td numeric={numeric} className={cn(diff && "bg-bad-bg font-medium text-bad")}>
      <span data-diff={diff ? "true" : undefined}>
        {children}
        {diff && <span className="sr-only"> (differs from the ledger)</span>}
      </span>
    </Td>
  );
}

const tick = (on: boolean) => (on ? "✓" : "–");

/**
 * Ledger and human side by side — reward, sub-scores, guardrails, claims — with every difference marked. One human
 * column on the reveal, one per reviewer on the adjudication page.
 */
export function ComparisonTable({
  ledger,
  humans,
  tolerance,
}: {
  ledger: LedgerSide;
  humans: HumanColumn[];
  tolerance: number;
}) {
  const codes = GUARDRAIL_CODES.filter(
    (c) => ledger.guardrails.includes(c) || humans.some((h) => h.side.guardrails.includes(c)),
  );
  const capOf = new Map(ledger.guardrailHits.map((g) => [g.code, g.cap]));
  const writes = [
    ...new Set([...(ledger.claims?.claimed_writes ?? []), ...humans.flatMap((h) => h.side.claims.claimed_writes)]),
  ].sort();
  const forbidden = [
    ...new Set([...(ledger.claims?.forbidden_hits ?? []), ...humans.flatMap((h) => h.side.claims.forbidden_hits)]),
  ].sort();
  const mentionKeys = [
    ...new Set([
      ...(ledger.claims?.mentioned ?? []).map((m) => m.key),
      ...humans.flatMap((h) => h.side.claims.mentioned.map((m) => m.key)),
    ]),
  ].sort();
  const mention = (list: { key: string; value?: unknown }[] | undefined, key: string) =>
    list?.find((m) => m.key === key);
  return (
    <Table>
      <thead>
        <tr>
          <Th />
          <Th numeric>Ledger</Th>
          {humans.map((h) => (
            <Th key={h.label} numeric>
              {h.label}
            </Th>
          ))}
        </tr>
      </thead>
      <tbody data-testid="comparison">
        <tr>
          <Td className="font-medium">Reward</Td>
          <Td numeric>
            <span data-testid="ledger-reward">{fmtScore(ledger.reward)}</span>
          </Td>
          {humans.map((h) => (
            <Cell key={h.label} numeric diff={h.comparison.rewardDisagrees}>
              {fmtScore(h.side.reward)} <span className="text-[11px]">({signed(h.comparison.rewardDelta)})</span>
            </Cell>
          ))}
        </tr>
        <tr>
          <Td className="text-fg-muted">Raw reward · deciding guardrail</Td>
          <Td numeric>
            {fmtScore(ledger.rawReward)} · {ledger.decidingGuardrail ?? "none"}
          </Td>
          {humans.map((h) => (
            <Td key={h.label} numeric className="text-fg-muted">
              tolerance ±{tolerance}
            </Td>
          ))}
        </tr>
        <SectionRow title="Sub-scores" span={humans.length + 2} />
        {DIMENSIONS.map((d) => (
          <tr key={d}>
            <Td>{d}</Td>
            <Td numeric>{fmtScore(ledger.subscores[d])}</Td>
            {humans.map((h) => (
              <Cell key={h.label} numeric diff={(h.comparison.subscoreDeltas[d] ?? 0) !== 0}>
                {fmtScore(h.side.subscores[d])}
              </Cell>
            ))}
          </tr>
        ))}
        <SectionRow title="Guardrails" span={humans.length + 2} />
        {codes.length === 0 && (
          <tr>
            <Td className="text-fg-muted">none flagged on either side</Td>
          </tr>
        )}
        {codes.map((c) => (
          <tr key={c}>
            <Td className="font-mono text-[12px]">{c}</Td>
            <Td numeric>{ledger.guardrails.includes(c) ? `✓ cap ${capOf.get(c) ?? "?"}` : "–"}</Td>
            {humans.map((h) => (
              <Cell key={h.label} numeric diff={h.side.guardrails.includes(c) !== ledger.guardrails.includes(c)}>
                {tick(h.side.guardrails.includes(c))}
              </Cell>
            ))}
          </tr>
        ))}
        <SectionRow title={`Claims (ledger's from ${ledger.claimsSource ?? "unknown"})`} span={humans.length + 2} />
        {writes.map((w) => (
          <tr key={`w-${w}`}>
            <Td className="font-mono text-[12px]">claims write {w}</Td>
            <Td numeric>{tick(!!ledger.claims?.claimed_writes.includes(w))}</Td>
            {humans.map((h) => (
              <Cell
                key={h.label}
                numeric
                diff={h.side.claims.claimed_writes.includes(w) !== !!ledger.claims?.claimed_writes.includes(w)}
              >
                {tick(h.side.claims.claimed_writes.includes(w))}
              </Cell>
            ))}
          </tr>
        ))}
        {mentionKeys.map((k) => {
          const l = mention(ledger.claims?.mentioned, k);
          return (
            <tr key={`m-${k}`}>
              <Td className="font-mono text-[12px]">mentions {k}</Td>
              <Td numeric>{l ? l.value === undefined ? "✓" : <JsonInline value={l.value} /> : "–"}</Td>
              {humans.map((h) => {
                const m = mention(h.side.claims.mentioned, k);
                const same = h.comparison.mentions.find((x) => x.key === k)?.same ?? (!m && !l);
                return (
                  <Cell key={h.label} numeric diff={!same}>
                    {m ? m.value === undefined ? "✓" : <JsonInline value={m.value} /> : "–"}
                  </Cell>
                );
              })}
            </tr>
          );
        })}
        {forbidden.map((f) => (
          <tr key={`f-${f}`}>
            <Td className="font-mono text-[12px]">forbidden {f}</Td>
            <Td numeric>{tick(!!ledger.claims?.forbidden_hits.includes(f))}</Td>
            {humans.map((h) => (
              <Cell
                key={h.label}
                numeric
                diff={h.side.claims.forbidden_hits.includes(f) !== !!ledger.claims?.forbidden_hits.includes(f)}
              >
                {tick(h.side.claims.forbidden_hits.includes(f))}
              </Cell>
            ))}
          </tr>
        ))}
        {writes.length + mentionKeys.length + forbidden.length === 0 && (
          <tr>
            <Td className="text-fg-muted">no claims on either side</Td>
          </tr>
        )}
      </tbody>
    </Table>
  );
}

function SectionRow({ title, span }: { title: string; span: number }) {
  return (
    <tr>
      <td
        colSpan={span}
        className="border-b border-border bg-bg-subtle px-2 py-1 text-[11px] font-semibold uppercase tracking-wide text-fg-subtle"
      >
        {title}
      </td>
    </tr>
  );
}

/** The verdict line: agrees within the tolerance, or sent to adjudication and why. */
export function Verdict({ comparison, tolerance }: { comparison: Comparison; tolerance: number }) {
  if (!comparison.disagrees) {
    return (
      <p className="rounded border border-good/40 bg-good-bg px-3 py-2 text-good" data-testid="verdict">
        Agrees with the ledger within ±{tolerance}
        {comparison.claimsDiffer ? "; the claims differ (marked below)." : "."}
      </p>
    );
  }
  const why = [
    comparison.rewardDelta === null
      ? "the ledger entry has no reward"
      : comparison.rewardDisagrees
        ? `the rewards differ by ${Math.abs(comparison.rewardDelta).toFixed(3)} (more than ±${tolerance})`
        : null,
    comparison.guardrailsDiffer ? "the guardrail sets differ" : null,
  ].filter(Boolean);
  return (
    <p className="rounded border border-bad/40 bg-bad-bg px-3 py-2 text-bad" data-testid="verdict">
      Sent to adjudication: {why.join(" and ")}.
    </p>
  );
}

/** The ledger's structured reasons, with the guardrail evidence codes. */
export function LedgerReasons({ ledger }: { ledger: LedgerSide }) {
  return (
    <div className="space-y-1 p-3">
      <div className="flex flex-wrap gap-1 text-[11px]">
        <Badge>status {ledger.status}</Badge>
        <Badge>source {ledger.source}</Badge>
        <Badge>claims {ledger.claimsSource ?? "unknown"}</Badge>
      </div>
      {ledger.reasons.length ? (
        <ReasonList reasons={ledger.reasons as Reason[]} />
      ) : (
        <p className="text-fg-muted">No reasons: every sub-score is 1 and no guardrail triggered.</p>
      )}
    </div>
  );
}
