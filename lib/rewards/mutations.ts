// Storing reward function versions, as verifier configs are stored: the canonical document under its SHA-256, the
// next version number of its name, the author and the reason, with its activity-log entry in the same transaction.
// The same document again under the same name is `unchanged`. Versions are never changed (035's triggers).
import { appendActivityLog, type ActivityActor } from "@/lib/auth/activity-log.ts";
import { db } from "@/lib/db/client.ts";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client.ts";
import type { VersionDocument } from "@/lib/rewards/schema.ts";
import { versionHash } from "@/lib/rewards/schema.ts";

export type StoredVersion = { id: number; functionId: number; name: string; version: number; hash: string };

export type AddVersionResult = { status: "created" | "unchanged"; version: StoredVersion };

/** Serialises adds, so two at once cannot pick the same version number of a name. */
const REWARD_VERSION_LOCK = 0x72657766;

const actorUser = (actor: ActivityActor) => ("userId" in actor ? actor.userId : null);

export async function addRewardVersion(
  input: { name: string; doc: VersionDocument; reason: string },
  actor: ActivityActor,
  client: PrismaClient = db(),
): Promise<AddVersionResult> {
  const hash = versionHash(input.doc);
  return client.$transaction(async (tx) => {
    await tx.$executeRaw`select pg_advisory_xact_lock(${REWARD_VERSION_LOCK}::bigint)`;
    let fn = await tx.rewardFunction.findUnique({ where: { name: input.name }, select: { id: true } });
    if (!fn) {
      fn = await tx.rewardFunction.create({
        data: { name: input.name, createdById: actorUser(actor) },
        select: { id: true },
      });
    }
    const existing = await tx.rewardFunctionVersion.findUnique({
      where: { functionId_hash: { functionId: fn.id, hash } },
      select: { id: true, version: true },
    });
    if (existing)
      return {
        status: "unchanged",
        version: { id: existing.id, functionId: fn.id, name: input.name, version: existing.version, hash },
      };
    const last = await tx.rewardFunctionVersion.findFirst({
      where: { functionId: fn.id },
      orderBy: { version: "desc" },
      select: { version: true },
    });
    const created = await tx.rewardFunctionVersion.create({
      data: {
        functionId: fn.id,
        version: (last?.version ?? 0) + 1,
        hash,
        body: input.doc as unknown as Prisma.InputJsonObject,
        reason: input.reason,
        createdById: actorUser(actor),
      },
      select: { id: true, version: true },
    });
    await appendActivityLog(
      {
        actor,
        action: "reward.version_create",
        target: { type: "reward_function_version", id: created.id },
        details: { name: input.name, version: created.version, hash, reason: input.reason },
      },
      tx,
    );
    return {
      status: "created",
      version: { id: created.id, functionId: fn.id, name: input.name, version: created.version, hash },
    };
  });
}
