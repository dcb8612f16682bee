// A lead's triage of a cluster: pin, status, note. One row per (run, cluster key), replaced on every change, and an
// activity-log entry with the before and after in the same transaction (the row is the present, the log the history).
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { db } from "@/lib/db/client.ts";
import { appendActivityLog, type ActivityActor } from "@/lib/auth/activity-log.ts";
import type { ClusterStateInput } from "@/lib/clusters/schema.ts";

export type SetStateResult = { ok: true; changed: boolean } | { ok: false; error: string };

export async function setClusterState(
  input: ClusterStateInput,
  actor: ActivityActor,
  client: PrismaClient = db(),
): Promise<SetStateResult> {
  const run = await client.run.findUnique({ where: { id: input.run }, select: { id: true } });
  if (!run) return { ok: false, error: `There is no run ${JSON.stringify(input.run)}.` };
  const updatedById = "userId" in actor ? actor.userId : null;
  return client.$transaction(
    async (tx) => {
      const where = { runId_key: { runId: input.run, key: input.key } };
      // FOR UPDATE-free read is fine: two leads saving at once both land in the log, the later one wins the row.
      const before = await tx.clusterState.findUnique({ where });
      const after = { pinned: input.pinned, status: input.status, note: input.note };
      const previous = before
        ? { pinned: before.pinned, status: before.status, note: before.note }
        : { pinned: false, status: "open" as const, note: "" };
      if (previous.pinned === after.pinned && previous.status === after.status && previous.note === after.note)
        return { ok: true, changed: false };
      await tx.clusterState.upsert({
        where,
        create: { runId: input.run, key: input.key, ...after, updatedById },
        update: { ...after, updatedById, updatedAt: new Date() },
      });
      await appendActivityLog(
        {
          actor,
          action: "cluster.update",
          target: { type: "cluster", id: `${input.run}/${input.key}` },
          details: { run: input.run, key: input.key, before: previous, after },
        },
        tx,
      );
      return { ok: true, changed: true };
    },
    { maxWait: 10_000, timeout: 30_000 },
  );
}
