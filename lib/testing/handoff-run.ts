// Test data for the bulk fix: a run whose tickets' cases allow a hand-off and whose rollouts read, hand off and write
// nothing — the clusters' hand-off blind spot, each rollout credited outcome 0.45 — as NDJSON lines for `verity
// ingest` (the Playwright journey e2e/bulk-fix.spec.ts).
const REGISTRY = [
  ...["order.get", "policy.search"].map((name) => ({ name, kind: "read" })),
  ...["finance.issue_refund"].map((name) => ({ name, kind: "write" })),
  { name: "handoff.transfer_to_human", kind: "handoff" },
];

export function handoffRunLines(runId: string, tickets: readonly string[], perTicket: number): unknown[] {
  const lines: unknown[] = [];
  tickets.forEach((ticketId) => {
    lines.push({
      kind: "case",
      ticket: { id: ticketId, category: "refund_damaged", customer_id: "C-77", message: "My parcel arrived broken." },
      env_snapshot: { order: { id: "O-1", paid_amount: 59.99, currency: "EUR" } },
      verifier_spec: {
        required_reads: ["order.get"],
        allowed_writes: ["finance.issue_refund"],
        required_writes: [
          { tool: "finance.issue_refund", args: { order_id: "$order.id", amount: "$order.paid_amount" } },
        ],
        handoff: "allowed",
        step_budget: 8,
      },
    });
    for (let k = 0; k < perTicket; k++)
      lines.push({
        kind: "rollout",
        trajectory_id: `${runId}/${ticketId}/k${k}`,
        run_id: runId,
        step: 10 * (k + 1),
        group_id: `${runId}/${ticketId}`,
        sample_index: k,
        ticket_id: ticketId,
        trajectory: {
          steps: [
            {
              type: "tool",
              name: "order.get",
              input: { order_id: "O-1" },
              output: { status: "delivered" },
              status: "success",
            },
            {
              type: "tool",
              name: "handoff.transfer_to_human",
              input: { ticket_id: ticketId },
              output: { queued: true },
              status: "success",
            },
          ],
          final_reply: "I have passed your request to a specialist colleague.",
        },
        sandbox: { writes: [], tables: {} },
        tool_registry: REGISTRY,
      });
  });
  return lines;
}
