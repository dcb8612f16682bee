// Reads of reward functions and their versions: the list (each function with its latest version and its runs), one
// function with every version, and the version a run or a Try it names.
import { db } from "@/lib/db/client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { parseVersionDocument, type VersionDocument } from "@/lib/rewards/schema.ts";

export type FunctionSummary = {
  id: number;
  name: string;
  versions: number;
  latest: { id: number; version: number; hash: string; createdAt: Date; author: string | null; kinds: string[] };
  runs: number;
};

export async function listRewardFunctions(client: PrismaClient = db()): Promise<FunctionSummary[]> {
  const fns = await client.rewardFunction.findMany({
    orderBy: { name: "asc" },
    select: {
      id: true,
      name: true,
      _count: { select: { versions: true } },
      versions: {
        orderBy: { version: "desc" },
        take: 1,
        select: {
          id: true,
          version: true,
          hash: true,
          body: true,
          createdAt: true,
          createdBy: { select: { email: true } },
          _count: { select: { runs: true } },
        },
      },
    },
  });
  return fns
    .filter((f) => f.versions.length > 0)
    .map((f) => {
      const v = f.versions[0];
      const body = v.body as { components?: { kind: string }[] };
      return {
        id: f.id,
        name: f.name,
        versions: f._count.versions,
        latest: {
          id: v.id,
          version: v.version,
          hash: v.hash,
          createdAt: v.createdAt,
          author: v.createdBy?.email ?? null,
          kinds: [...new Set((body.components ?? []).map((c) => c.kind))],
        },
        runs: v._count.runs,
      };
    });
}

export type VersionRow = {
  id: number;
  functionId: number;
  name: string;
  version: number;
  hash: string;
  doc: VersionDocument;
  reason: string;
  author: string | null;
  createdAt: Date;
};

const VERSION_SELECT = {
  id: true,
  functionId: true,
  version: true,
  hash: true,
  body: true,
  reason: true,
  createdAt: true,
  createdBy: { select: { email: true } },
  function: { select: { name: true } },
} as const;

function toVersionRow(v: {
  id: number;
  functionId: number;
  version: number;
  hash: string;
  body: unknown;
  reason: string;
  createdAt: Date;
  createdBy: { email: string } | null;
  function: { name: string };
}): VersionRow {
  const parsed = parseVersionDocument(v.body);
  // Stored documents were validated with defaults applied; one that no longer parses is shown as stored.
  const doc = parsed.ok ? parsed.doc : (v.body as VersionDocument);
  return {
    id: v.id,
    functionId: v.functionId,
    name: v.function.name,
    version: v.version,
    hash: v.hash,
    doc,
    reason: v.reason,
    author: v.createdBy?.email ?? null,
    createdAt: v.createdAt,
  };
}

/** Every version of a function, newest first; null when there is no such function. */
export async function functionVersions(name: string, client: PrismaClient = db()): Promise<VersionRow[] | null> {
  const rows = await client.rewardFunctionVersion.findMany({
    where: { function: { name } },
    orderBy: { version: "desc" },
    select: VERSION_SELECT,
  });
  return rows.length ? rows.map(toVersionRow) : null;
}

/** A function's version (`version` absent: its latest); null when there is none. */
export async function findVersion(
  name: string,
  version: number | undefined,
  client: PrismaClient = db(),
): Promise<VersionRow | null> {
  const row = await client.rewardFunctionVersion.findFirst({
    where: { function: { name }, ...(version ? { version } : {}) },
    orderBy: { version: "desc" },
    select: VERSION_SELECT,
  });
  return row ? toVersionRow(row) : null;
}

export async function versionById(id: number, client: PrismaClient = db()): Promise<VersionRow | null> {
  const row = await client.rewardFunctionVersion.findUnique({ where: { id }, select: VERSION_SELECT });
  return row ? toVersionRow(row) : null;
}
