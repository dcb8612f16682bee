// What a reader sees of one rollout — the ticket, environment snapshot and spec, the steps, the final reply, the
// sandbox writes — read from the rollout and its case only, never from the ledger (rollout.claims is left out too:
// a bundle's claims are what the ledger scored). The blind annotation page and the lead's adjudication page share it.
import { db, type Db } from "@/lib/db/client.ts";
import type { Prisma } from "@/lib/generated/prisma/client.ts";
import { listSpecPointers, type PointerRow } from "@/lib/ledger/spec-pointers.ts";

export type Step = { type: string; name: string; input?: unknown; output?: unknown; status?: string };
export type Write = { tool: string; args?: unknown; step?: number; at?: string };

export type RolloutView = {
  trajectoryId: string;
  ticketId: string;
  steps: Step[];
  finalReply: string;
  writes: Write[];
  /** Registry kind of each tool: read, write, handoff, other. */
  kinds: Record<string, string>;
  ticket: unknown;
  snapshot: unknown;
  spec: unknown;
  pointers: PointerRow[];
};

export const rolloutViewSelect = {
  trajectoryId: true,
  ticketId: true,
  steps: true,
  finalReply: true,
  sandbox: true,
  registry: { select: { tools: true } },
} satisfies Prisma.RolloutSelect;
export type RolloutViewRow = Prisma.RolloutGetPayload<{ select: typeof rolloutViewSelect }>;

export const caseViewSelect = { ticket: true, envSnapshot: true, verifierSpec: true } satisfies Prisma.CaseSelect;
export type CaseViewRow = Prisma.CaseGetPayload<{ select: typeof caseViewSelect }>;

export type RegistryTool = { name: string; kind: string };

export function registryToolsOf(r: RolloutViewRow): RegistryTool[] {
  return (r.registry.tools ?? []) as RegistryTool[];
}

export function toRolloutView(r: RolloutViewRow, c: CaseViewRow | null): RolloutView {
  const sandbox = (r.sandbox ?? {}) as { writes?: Write[] };
  const snapshot = c?.envSnapshot ?? {};
  return {
    trajectoryId: r.trajectoryId,
    ticketId: r.ticketId,
    steps: (r.steps ?? []) as Step[],
    finalReply: r.finalReply,
    writes: sandbox.writes ?? [],
    kinds: Object.fromEntries(registryToolsOf(r).map((t) => [t.name, t.kind])),
    ticket: c?.ticket ?? { id: r.ticketId },
    snapshot,
    spec: c?.verifierSpec ?? null,
    pointers: c ? listSpecPointers(c.verifierSpec, snapshot) : [],
  };
}

/** The rollout an audit item shadows, as its reader sees it; null when there is no such item. */
export async function loadItemRolloutView(itemId: bigint, client: Db = db()): Promise<RolloutView | null> {
  const item = await client.auditItem.findUnique({
    where: { id: itemId },
    select: { ticketId: true, rollout: { select: rolloutViewSelect } },
  });
  if (!item) return null;
  const caseDoc = await client.case.findUnique({ where: { ticketId: item.ticketId }, select: caseViewSelect });
  return toRolloutView(item.rollout, caseDoc);
}
