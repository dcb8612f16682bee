// Storing verifier configs. A config is stored whole (merged onto the defaults) under its canonical hash, the hash
// every score record carries, so a stored config is exactly what re-scoring with it uses. Versions count per name;
// the same content again is `unchanged` whatever name it is sent under. Each change and its activity-log entries
// commit together.
import { appendActivityLog, type ActivityActor } from "@/lib/auth/activity-log.ts";
import { db } from "@/lib/db/client.ts";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client.ts";
import type { VerifierConfig } from "@/lib/verifier/config.ts";
import { configHash } from "@/lib/verifier/config.ts";

export type StoredConfig = { id: number; name: string; version: number; hash: string; isDefault: boolean };

export type AddConfigResult = {
  ok: true;
  status: "created" | "unchanged";
  config: StoredConfig;
  defaultChanged: boolean;
};

/** Serialises adds, so two at once cannot pick the same version of a name or both store one hash. */
const CONFIG_LOCK = 0x76636667;

async function makeDefault(tx: Prisma.TransactionClient, c: StoredConfig, actor: ActivityActor): Promise<void> {
  const previous = await tx.verifierConfig.findFirst({ where: { isDefault: true }, select: { hash: true } });
  await tx.verifierConfig.updateMany({ where: { isDefault: true }, data: { isDefault: false } });
  await tx.verifierConfig.update({ where: { id: c.id }, data: { isDefault: true } });
  await appendActivityLog(
    {
      actor,
      action: "config.set_default",
      target: { type: "verifier_config", id: c.id },
      details: { name: c.name, version: c.version, hash: c.hash, previousHash: previous?.hash ?? null },
    },
    tx,
  );
}

/**
 * Stores a validated config as the next version of `name` (audit `config.create`), and with `makeDefault` makes it
 * the default (audit `config.set_default`). A config whose hash is already stored is not stored again: the answer is
 * `unchanged` with the stored one (made the default if asked and it was not).
 */
export async function addVerifierConfig(
  input: { name: string; config: VerifierConfig; makeDefault?: boolean },
  actor: ActivityActor,
  client: PrismaClient = db(),
): Promise<AddConfigResult> {
  const hash = configHash(input.config);
  return client.$transaction(async (tx) => {
    await tx.$executeRaw`select pg_advisory_xact_lock(${CONFIG_LOCK}::bigint)`;
    const select = { id: true, name: true, version: true, hash: true, isDefault: true } as const;
    const existing = await tx.verifierConfig.findUnique({ where: { hash }, select });
    if (existing) {
      if (!input.makeDefault || existing.isDefault)
        return { ok: true, status: "unchanged", config: existing, defaultChanged: false };
      await makeDefault(tx, existing, actor);
      return { ok: true, status: "unchanged", config: { ...existing, isDefault: true }, defaultChanged: true };
    }
    const last = await tx.verifierConfig.findFirst({
      where: { name: input.name },
      orderBy: { version: "desc" },
      select: { version: true },
    });
    const created = await tx.verifierConfig.create({
      data: {
        name: input.name,
        version: (last?.version ?? 0) + 1,
        hash,
        body: input.config as unknown as Prisma.InputJsonObject,
        createdById: "userId" in actor ? actor.userId : null,
      },
      select,
    });
    await appendActivityLog(
      {
        actor,
        action: "config.create",
        target: { type: "verifier_config", id: created.id },
        details: { name: created.name, version: created.version, hash },
      },
      tx,
    );
    if (input.makeDefault) await makeDefault(tx, created, actor);
    return {
      ok: true,
      status: "created",
      config: { ...created, isDefault: !!input.makeDefault },
      defaultChanged: !!input.makeDefault,
    };
  });
}
