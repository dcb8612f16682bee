import "server-only";
// Writes of saved searches. Every write names its owner: a search that is not the user's is "not found", never
// changed, so nobody can rename or delete another user's search by guessing its id.
import { db } from "@/lib/db/client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import type { Result } from "@/lib/result.ts";
import type { SavedSearchInput } from "@/lib/saved-searches/schema.ts";

const taken = (name: string) => ({
  ok: false as const,
  field: "name",
  error: `You already have a saved search named "${name}": pick another name.`,
});
const notFound = (id: number) => ({ ok: false as const, field: "id", error: `You have no saved search ${id}.` });
const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === "P2002";

/** Saves a search for its owner; refuses a second one of the same name and a run that does not exist. */
export async function createSavedSearch(
  userId: number,
  input: SavedSearchInput,
  client: PrismaClient = db(),
): Promise<Result<{ id: number }>> {
  if (input.runId) {
    const run = await client.run.findUnique({ where: { id: input.runId }, select: { id: true } });
    if (!run) return { ok: false, field: "runId", error: `No run ${input.runId}.` };
  }
  try {
    const row = await client.savedSearch.create({
      data: {
        userId,
        name: input.name,
        query: input.query,
        runId: input.runId ?? null,
        alarmShare: input.alarmShare ?? null,
      },
      select: { id: true },
    });
    return { ok: true, id: row.id };
  } catch (err) {
    if (isUniqueViolation(err)) return taken(input.name);
    throw err;
  }
}

/** Renames one of the owner's saved searches. */
export async function renameSavedSearch(
  userId: number,
  id: number,
  name: string,
  client: PrismaClient = db(),
): Promise<Result> {
  try {
    const { count } = await client.savedSearch.updateMany({ where: { id, userId }, data: { name } });
    return count ? { ok: true } : notFound(id);
  } catch (err) {
    if (isUniqueViolation(err)) return taken(name);
    throw err;
  }
}

/** Deletes one of the owner's saved searches. */
export async function deleteSavedSearch(userId: number, id: number, client: PrismaClient = db()): Promise<Result> {
  const { count } = await client.savedSearch.deleteMany({ where: { id, userId } });
  return count ? { ok: true } : notFound(id);
}
