// Export of a run's current ledger as NDJSON score records (formats §3), streamed in keyset batches from one
// read-only snapshot. Each ticket's case is written once, before its first score record, so that ingesting the
// export into an empty database reproduces the ledger (category included) — see export.int.test.ts.
import type pg from "pg";
import { z } from "zod";
import { checkout } from "@/lib/ingest/pool.ts";
import { recordFromLedger, type LedgerValues } from "@/lib/ingest/ledger-rows.ts";
import { caseFromColumns } from "@/lib/ingest/rows.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

export const exportFilterSchema = z
  .strictObject({
    run: z.string().min(1).max(200),
    from: z.coerce.number().int().nonnegative().optional(),
    to: z.coerce.number().int().nonnegative().optional(),
    guardrail: z
      .enum(GUARDRAIL_CODES, { error: `expected a guardrail code (${GUARDRAIL_CODES.join(", ")})` })
      .optional(),
    cases: z
      .union([z.boolean(), z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true")])
      .default(true),
  })
  .refine((f) => f.from === undefined || f.to === undefined || f.from <= f.to, {
    path: ["to"],
    error: "must be at least `from`",
  });
export type ExportFilter = z.infer<typeof exportFilterSchema>;

const BATCH = 1000;

type Row = LedgerValues & { id: string };

const COLUMNS = `l.id::text as id, l.trajectory_id, l.run_id, l.step, l.ticket_id, l.group_id, l.status::text as status,
  l.source::text as source, l.verifier_version, l.config_hash, l.claims_source, l.raw_reward, l.reward, l.capped,
  l.outcome, l.policy, l.evidence, l.efficiency, l.communication, l.deciding_guardrail, l.guardrail_mask,
  l.guardrails, l.reasons, l.claims, l.handoff, l.tool_steps, l.trained_reward`;

/** Whether the run exists (the API answers 404 rather than an empty export for a typo). */
export async function runExists(pool: pg.Pool, runId: string): Promise<boolean> {
  const r = await pool.query("select 1 from runs where id = $1", [runId]);
  return (r.rowCount ?? 0) > 0;
}

/**
 * Yields the export line by line (each ending in "\n"), current entries ordered by (step, id). Keyset pagination on
 * (step, id) — through ledger(run_id, step, id), or ledger_guardrails(run_id, code, step) with a guardrail filter —
 * so memory holds one batch, whatever the run's size. Stop iterating to cancel; the snapshot is released.
 */
export async function* exportLedger(pool: pg.Pool, filter: ExportFilter, batchSize = BATCH): AsyncGenerator<string> {
  const client = await checkout(pool);
  let failed = false;
  try {
    await client.query("begin isolation level repeatable read read only");
    const emitted = new Set<string>();
    let after: { step: number; id: string } = { step: -1, id: "0" };
    const from = filter.from ?? 0;
    const to = filter.to ?? 2147483647;
    for (;;) {
      const params: unknown[] = [filter.run, from, to, after.step, after.id, batchSize];
      const sql = filter.guardrail
        ? `select ${COLUMNS} from ledger_guardrails g join ledger l on l.id = g.ledger_id
            where g.run_id = $1 and g.code = $7 and g.step between $2 and $3 and (g.step, g.ledger_id) > ($4, $5::bigint)
              and l.is_current
            order by g.step, g.ledger_id limit $6`
        : `select ${COLUMNS} from ledger l
            where l.run_id = $1 and l.step between $2 and $3 and (l.step, l.id) > ($4, $5::bigint) and l.is_current
            order by l.step, l.id limit $6`;
      if (filter.guardrail) params.push(filter.guardrail);
      const { rows } = await client.query<Row>(sql, params);
      if (rows.length === 0) break;
      if (filter.cases) {
        const tickets = [...new Set(rows.map((r) => r.ticket_id))].filter((t) => !emitted.has(t));
        if (tickets.length) {
          const cases = await client.query<{
            ticket_id: string;
            ticket: unknown;
            env_snapshot: unknown;
            verifier_spec: unknown;
          }>(
            "select ticket_id, ticket, env_snapshot, verifier_spec from cases where ticket_id = any($1::text[]) order by ticket_id",
            [tickets],
          );
          for (const c of cases.rows) {
            emitted.add(c.ticket_id);
            yield JSON.stringify(caseFromColumns(c)) + "\n";
          }
          for (const t of tickets) emitted.add(t);
        }
      }
      for (const r of rows) yield JSON.stringify(recordFromLedger(r)) + "\n";
      const last = rows[rows.length - 1];
      after = { step: last.step, id: last.id };
      if (rows.length < batchSize) break;
    }
    await client.query("commit");
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    if (!failed) await client.query("rollback").catch(() => undefined);
    client.release(failed ? true : undefined);
  }
}

/**
 * The export as an HTTP response: 400 for a bad filter, 404 for an unknown run, else 200 with the NDJSON streamed
 * under backpressure (a pull reads the next lines only when the client has taken the previous ones). A client
 * that goes away cancels the stream, which releases the snapshot.
 */
export async function exportResponse(runId: string, params: URLSearchParams, pool: pg.Pool): Promise<Response> {
  const headers = { "cache-control": "no-store" };
  const parsed = exportFilterSchema.safeParse({ ...Object.fromEntries(params), run: runId });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return Response.json(
      { error: { code: "bad_request", message: `${issue.path.join(".") || "query"}: ${issue.message}` } },
      { status: 400, headers },
    );
  }
  if (!(await runExists(pool, runId))) {
    return Response.json(
      { error: { code: "not_found", message: `no run ${JSON.stringify(runId)}` } },
      { status: 404, headers },
    );
  }
  const lines = exportLedger(pool, parsed.data);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk = "";
      while (chunk.length < 64 * 1024) {
        const next = await lines.next();
        if (next.done) {
          if (chunk) controller.enqueue(encoder.encode(chunk));
          controller.close();
          return;
        }
        chunk += next.value;
      }
      controller.enqueue(encoder.encode(chunk));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  const name = `${runId.replace(/[^A-Za-z0-9._-]+/g, "_")}.ledger.ndjson`;
  return new Response(body, {
    headers: {
      ...headers,
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="${name}"`,
    },
  });
}
