// What a bulk fix applies to (docs/audit.md "Bulk fix from a cluster"): the run, the cluster and the tickets the lead
// chose, checked against the cluster's members in the window as they are now — a ticket that is not in the cluster
// is refused by name — and, for a required write, its tool against the stored tool registries. Read on the primary:
// right after an Apply the cluster is smaller, and the next dry run must not offer the tickets just fixed.
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { listClusterTickets, runExists, type ClusterTicket } from "@/lib/clusters/detail-data.ts";
import { clusterLabel, parseKey, type ClusterKey } from "@/lib/clusters/keys.ts";
import type { BulkFixInput, ClusterWindow } from "@/lib/clusters/schema.ts";

export type BulkFixTarget = {
  window: ClusterWindow;
  key: ClusterKey;
  clusterKey: string;
  label: string;
  /** The chosen tickets, in the cluster's order (most members first). */
  tickets: string[];
  /** The cluster's members among the chosen tickets. */
  members: number;
};

export type TargetError = { field: string; message: string };

const listed = (xs: string[]) =>
  xs
    .slice(0, 5)
    .map((x) => JSON.stringify(x))
    .join(", ") + (xs.length > 5 ? ` and ${xs.length - 5} more` : "");

/** The chosen tickets against the cluster's members, or the one error that names what is wrong. */
export function chooseTickets(
  members: readonly ClusterTicket[],
  chosen: readonly string[] | undefined,
): { ok: true; tickets: string[]; members: number } | { ok: false; error: TargetError } {
  if (members.length === 0)
    return { ok: false, error: { field: "cluster", message: "the cluster has no members in this window" } };
  if (!chosen)
    return { ok: true, tickets: members.map((m) => m.ticketId), members: members.reduce((n, m) => n + m.rollouts, 0) };
  const want = new Set(chosen);
  const known = new Set(members.map((m) => m.ticketId));
  const unknown = [...want].filter((t) => !known.has(t));
  if (unknown.length)
    return {
      ok: false,
      error: {
        field: "tickets",
        message: `${listed(unknown)} ${unknown.length === 1 ? "is not a ticket" : "are not tickets"} of this cluster in this window`,
      },
    };
  const picked = members.filter((m) => want.has(m.ticketId));
  return { ok: true, tickets: picked.map((m) => m.ticketId), members: picked.reduce((n, m) => n + m.rollouts, 0) };
}

/** The registries' kind of a tool: a required write must name a write tool that some registry knows. */
export async function checkWriteTool(tool: string, client: PrismaClient): Promise<TargetError | null> {
  const rows = await client.$queryRaw<{ kind: string | null; writes: string[] | null }[]>`
    select (select max(e ->> 'kind') from tool_registries t, jsonb_array_elements(t.tools) e where e ->> 'name' = ${tool}) as kind,
           (select array_agg(distinct e ->> 'name' order by e ->> 'name') from tool_registries t, jsonb_array_elements(t.tools) e
             where e ->> 'kind' = 'write') as writes`;
  const { kind, writes } = rows[0];
  if (kind === "write") return null;
  const known = writes?.length
    ? ` (write tools: ${writes.slice(0, 12).join(", ")}${writes.length > 12 ? ", …" : ""})`
    : "";
  return {
    field: "tool",
    message: kind
      ? `${tool} is a ${kind} tool in the tool registries, not a write${known}`
      : `${tool} is in no tool registry${known}`,
  };
}

/** The target of a parsed bulk-fix input, or the error naming the field at fault. */
export async function resolveBulkFixTarget(
  input: BulkFixInput,
  client: PrismaClient,
): Promise<{ ok: true; target: BulkFixTarget } | { ok: false; error: TargetError }> {
  const key = parseKey(input.cluster);
  if (!key) return { ok: false, error: { field: "cluster", message: "is not a cluster key" } };
  const window: ClusterWindow = {
    runId: input.run,
    from: input.step_from,
    to: input.step_to,
    threshold: input.threshold,
  };
  if (!(await runExists(window.runId, client)))
    return { ok: false, error: { field: "run", message: `there is no run ${JSON.stringify(window.runId)}` } };
  if (input.change === "require_write" && input.tool) {
    const bad = await checkWriteTool(input.tool, client);
    if (bad) return { ok: false, error: bad };
  }
  const chosen = chooseTickets(await listClusterTickets(window, key, client), input.tickets);
  if (!chosen.ok) return chosen;
  return {
    ok: true,
    target: {
      window,
      key,
      clusterKey: input.cluster,
      label: clusterLabel(key),
      tickets: chosen.tickets,
      members: chosen.members,
    },
  };
}
