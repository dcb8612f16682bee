// Reads of stored verifier configs (the CLI's list, the config a re-score form picked; the console's pages list them
// through lib/admin/data.ts).
import { db } from "@/lib/db/client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { DEFAULT_CONFIG, parseVerifierConfig, type VerifierConfig } from "@/lib/verifier/config.ts";

/** One stored config by id, or null (an id that is not a positive whole number is none). */
export async function storedConfigById(id: number, client: PrismaClient = db()) {
  return Number.isInteger(id) && id > 0 ? client.verifierConfig.findUnique({ where: { id } }) : null;
}

/** Every stored config, by name then newest version first, with who stored it. */
export async function listStoredConfigs(client: PrismaClient = db()) {
  return client.verifierConfig.findMany({
    orderBy: [{ name: "asc" }, { version: "desc" }],
    select: {
      id: true,
      name: true,
      version: true,
      hash: true,
      isDefault: true,
      createdAt: true,
      createdBy: { select: { email: true } },
    },
  });
}

/**
 * The config a form picked ("default": the built-in one; else a stored config's id), parsed: for the re-score and
 * its dry run. An error names the config and why.
 */
export async function configByChoice(
  choice: "default" | number,
  client: PrismaClient = db(),
): Promise<{ ok: true; config: VerifierConfig; name: string } | { ok: false; error: string }> {
  if (choice === "default") return { ok: true, config: DEFAULT_CONFIG, name: "the default config" };
  const row = await client.verifierConfig.findUnique({
    where: { id: choice },
    select: { name: true, version: true, body: true },
  });
  if (!row) return { ok: false, error: "That config does not exist (any more)." };
  const c = parseVerifierConfig(row.body);
  if (!c.ok) return { ok: false, error: `Config ${row.name} v${row.version} is not valid: ${c.issues[0]?.message}` };
  return { ok: true, config: c.config, name: `${row.name} v${row.version}` };
}
