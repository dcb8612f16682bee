// A cluster as the data backlog: NDJSON, one object a line, in this order —
//   {"kind":"cluster", …}    what was exported: run, window, threshold, key, label, exact size, tickets, mean reward
//   {"kind":"signature", …}  every reason signature (code, tool, field) of the members, with how many carry it
//   {"kind":"ticket", …}     each ticket with members (most members first), followed by
//   {"kind":"case", …}       its case in the wire format of formats.md §1 (re-ingestible as is), when stored
//   {"kind":"example", …}    the lowest-reward members with their final reply and structured reasons
// Counts here are exact (members are selected with sql.ts memberWhere), even where the report samples level 2.
// `format=parquet` downloads the members themselves instead: one flat row per ledger entry (clusterMembersParquet).
import type pg from "pg";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { readDb } from "@/lib/db/read-client.ts";
import {
  listCases,
  listClusterSignatures,
  listClusterTickets,
  listExportExamples,
} from "@/lib/clusters/detail-data.ts";
import { browserHref, clusterLabel, formatKey, type ClusterKey } from "@/lib/clusters/keys.ts";
import type { ClusterWindow } from "@/lib/clusters/schema.ts";
import { memberWhere } from "@/lib/clusters/sql.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { inSnapshot } from "@/lib/ledger/export.ts";
import { PARQUET_JOIN, PARQUET_SELECT, type ParquetRow } from "@/lib/ledger/parquet-columns.ts";
import { fileSlug, parquetChunks, parquetResponse } from "@/lib/ledger/parquet.ts";
import { streamedBody, utf8 } from "@/lib/ledger/stream-body.ts";

const CASE_CHUNK = 200;
export const EXPORT_EXAMPLES = 20;

export async function* clusterBacklog(
  w: ClusterWindow,
  key: ClusterKey,
  client: PrismaClient = readDb(),
): AsyncGenerator<string> {
  const line = (o: unknown) => JSON.stringify(o) + "\n";
  const [tickets, signatures] = await Promise.all([
    listClusterTickets(w, key, client),
    listClusterSignatures(w, key, client),
  ]);
  const size = tickets.reduce((s, t) => s + t.rollouts, 0);
  const rewarded = tickets.filter((t) => t.meanReward !== null);
  const weight = rewarded.reduce((s, t) => s + t.rollouts, 0);
  yield line({
    kind: "cluster",
    run_id: w.runId,
    key: formatKey(key),
    label: clusterLabel(key),
    step_from: w.from ?? null,
    step_to: w.to ?? null,
    threshold: w.threshold,
    size,
    tickets: tickets.length,
    mean_reward: weight
      ? Math.round((rewarded.reduce((s, t) => s + t.meanReward! * t.rollouts, 0) / weight) * 1e6) / 1e6
      : null,
    trajectories: browserHref(w, key),
  });
  for (const s of signatures)
    yield line({ kind: "signature", code: s.code, tool: s.tool, field: s.field, rollouts: s.rollouts });
  for (let i = 0; i < tickets.length; i += CASE_CHUNK) {
    const chunk = tickets.slice(i, i + CASE_CHUNK);
    const cases = new Map(
      (
        await listCases(
          chunk.map((t) => t.ticketId),
          client,
        )
      ).map((c) => [c.ticketId, c]),
    );
    for (const t of chunk) {
      yield line({
        kind: "ticket",
        ticket_id: t.ticketId,
        category: t.category,
        rollouts: t.rollouts,
        mean_reward: t.meanReward === null ? null : Math.round(t.meanReward * 1e6) / 1e6,
      });
      const c = cases.get(t.ticketId);
      if (c) yield line({ kind: "case", ticket: c.ticket, env_snapshot: c.envSnapshot, verifier_spec: c.verifierSpec });
    }
  }
  for (const e of await listExportExamples(w, key, EXPORT_EXAMPLES, client)) {
    yield line({
      kind: "example",
      trajectory_id: e.trajectoryId,
      step: e.step,
      ticket_id: e.ticketId,
      reward: e.reward,
      raw_reward: e.rawReward,
      deciding_guardrail: e.decidingGuardrail,
      final_reply: e.finalReply,
      reasons: e.reasons,
    });
  }
}

/** A streamed NDJSON download of the backlog (console route and token API alike). */
export async function backlogResponse(
  w: ClusterWindow,
  key: ClusterKey,
  client: PrismaClient = readDb(),
): Promise<Response> {
  const body = await streamedBody(clusterBacklog(w, key, client), utf8);
  const slug = formatKey(key)
    .replace(/[^a-z0-9_.-]+/gi, "-")
    .slice(0, 80);
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="verity-cluster-${w.runId.replace(/[^a-z0-9_.-]+/gi, "-")}-${slug}.ndjson"`,
      "cache-control": "no-store",
    },
  });
}

const MEMBER_BATCH = 5000;

/**
 * The cluster's members as a Parquet file: one row per current ledger entry, the columns of the ledger's Parquet
 * export (docs/formats.md §6), ordered by (step, id), read by key from one snapshot; what was exported is in the
 * footer's `verity.export`.
 */
export function clusterMembersParquet(
  w: ClusterWindow,
  key: ClusterKey,
  pool: pg.Pool = bulkPool(),
  options: { rowGroupRows?: number } = {},
): AsyncGenerator<Uint8Array> {
  const where = memberWhere(w, key);
  const n = where.values.length;
  const batches = inSnapshot(pool, async function* (client) {
    let after = { step: -1, id: "0" };
    for (;;) {
      const { rows } = await client.query<ParquetRow>(
        `select ${PARQUET_SELECT} from ledger l ${PARQUET_JOIN}
          where ${where.text} and (l.step, l.id) > ($${n + 1}, $${n + 2}::bigint)
          order by l.step, l.id limit $${n + 3}`,
        [...where.values, after.step, after.id, MEMBER_BATCH],
      );
      if (rows.length === 0) return;
      yield rows;
      after = { step: rows[rows.length - 1].step, id: rows[rows.length - 1].id };
      if (rows.length < MEMBER_BATCH) return;
    }
  });
  const what = { kind: "cluster", run_id: w.runId, key: formatKey(key), label: clusterLabel(key) };
  const window = { step_from: w.from ?? null, step_to: w.to ?? null, threshold: w.threshold };
  return parquetChunks(batches, { ...options, metadata: { "verity.export": JSON.stringify({ ...what, ...window }) } });
}

/** A streamed Parquet download of the cluster's members (console route and token API alike). */
export async function backlogParquetResponse(
  w: ClusterWindow,
  key: ClusterKey,
  pool: pg.Pool = bulkPool(),
): Promise<Response> {
  const slug = formatKey(key)
    .replace(/[^a-z0-9_.-]+/gi, "-")
    .slice(0, 80);
  return parquetResponse(clusterMembersParquet(w, key, pool), `verity-cluster-${fileSlug(w.runId)}-${slug}.parquet`);
}
