// Reads of stored verifier configs (the CLI's list; the console's pages read through lib/admin/data.ts).
import { db } from "@/lib/db/client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";

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
