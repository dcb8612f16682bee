// The CPU half of ingest: decode, validate, hash and (for rollouts whose case is known) score one batch of lines.
// It runs while the previous batch is being written, so Node's work overlaps with PostgreSQL's. Nothing here
// decides "new or unchanged": that needs the database under the ingest lock (see write-batch.ts).
import type pg from "pg";
import { CaseCache } from "@/lib/ingest/cases.ts";
import { mapPlatformPayload, payloadPath, type PlatformDefaults } from "@/lib/ingest/platform.ts";
import { ledgerEntryRows, type LedgerEntryRows } from "@/lib/ingest/ledger-rows.ts";
import { caseRow, rolloutRow, withIdentityDefaults, type CaseRow, type RolloutRow } from "@/lib/ingest/rows.ts";
import { parseLineValue, type IngestFormat, type ParsedLine } from "@/lib/ingest/schema.ts";
import { DEFAULT_CONFIG, type VerifierConfig } from "@/lib/verifier/config.ts";
import { makeReason } from "@/lib/verifier/reasons.ts";
import { errorRecord } from "@/lib/verifier/records.ts";
import type { Case, Rollout, VerifierScoreRecord } from "@/lib/verifier/schema.ts";
import { identityOf, scoreRollout } from "@/lib/verifier/score.ts";

/** A line as read: decoded text (NDJSON) or an already-built value (the demo generator), or why it is unusable. */
export type RawLine = { line: number; text?: string | null; value?: unknown; error?: string };

export type PreparedLine = {
  line: number;
  /** The line as received, for --rejects (kept, while its batch is in flight, only when asked for). */
  text: string | null;
  reject?: { path: string; message: string };
  case?: { row: CaseRow; ifAbsent: boolean };
  rollout?: { row: RolloutRow; score?: LedgerEntryRows; caseKnown: boolean };
  score?: LedgerEntryRows;
  /** Ticket category for the line's ledger entry (from its case, when known). */
  category: string | null;
};

export type PrepareOptions = {
  format: IngestFormat;
  defaults: PlatformDefaults;
  config: VerifierConfig;
  /** Keep each line's text until its batch is written (only --rejects needs it; it doubles what a batch holds). */
  keepText?: boolean;
};

type Parsed = { raw: RawLine; parts: ParsedLine[]; platformCase?: ParsedLine } | { raw: RawLine; reject: { path: string; message: string } };

// PostgreSQL text and jsonb cannot hold U+0000, and jsonb rejects unpaired surrogates. Checked up front so one such
// line is rejected instead of failing its whole batch.
const NUL = /(^|[^\\])(\\\\)*\\u0000/;
const MAYBE_SURROGATE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

function unstorable(text: string, value: unknown): string | null {
  // Nearly every line has no "\u" escape at all: one indexOf settles it.
  if (text.indexOf("\\u") < 0) return null;
  if (text.indexOf("\\u0000") >= 0 && NUL.test(text)) return "contains the character U+0000, which PostgreSQL cannot store";
  // JSON.stringify writes paired surrogates as characters and only unpaired ones as \uD8xx escapes.
  if (MAYBE_SURROGATE.test(text) && LONE_SURROGATE.test(JSON.stringify(value))) {
    return "contains an unpaired UTF-16 surrogate, which PostgreSQL cannot store";
  }
  return null;
}

// Preparing a batch takes long enough (tens of ms per thousand lines) that the batch being written meanwhile would
// stall between its queries; yielding now and then lets its round trips proceed, so Node and PostgreSQL overlap.
const YIELD_EVERY = 16;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Preparer {
  readonly cases = new CaseCache();
  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: PrepareOptions = { format: "ndjson", defaults: {}, config: DEFAULT_CONFIG },
  ) {}

  async prepare(batch: RawLine[]): Promise<PreparedLine[]> {
    const parsed: Parsed[] = [];
    for (let i = 0; i < batch.length; i++) {
      parsed.push(this.parse(batch[i]));
      if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToEventLoop();
    }
    const tickets = new Set<string>();
    const scored = new Set<string>();
    for (const p of parsed) {
      if ("reject" in p) continue;
      for (const part of p.parts) {
        if (!part.ok) continue;
        if (part.kind === "case") tickets.add(part.value.ticket.id);
        else if (part.kind === "rollout") tickets.add(part.value.ticket_id);
        else {
          if (part.value.ticket_id) tickets.add(part.value.ticket_id);
          if (part.value.trajectory_id) scored.add(part.value.trajectory_id);
        }
      }
    }
    await this.cases.load(this.pool, tickets);
    const out: PreparedLine[] = [];
    for (let i = 0; i < parsed.length; i++) {
      out.push(this.resolve(parsed[i], scored));
      if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToEventLoop();
    }
    return out;
  }

  private parse(raw: RawLine): Parsed {
    if (raw.error) return { raw, reject: { path: "", message: raw.error } };
    let value = raw.value;
    if (raw.text !== undefined && raw.text !== null) {
      try {
        value = JSON.parse(raw.text);
      } catch (err) {
        return { raw, reject: { path: "", message: `invalid JSON: ${(err as Error).message}` } };
      }
      const bad = unstorable(raw.text, value);
      if (bad) return { raw, reject: { path: "", message: bad } };
    }
    if (this.opts.format === "platform") {
      const m = mapPlatformPayload(value, raw.line, this.opts.defaults);
      if (!m.ok) return { raw, reject: m.issue };
      const parts = [parseLineValue(m.mapped.rollout), parseLineValue(m.mapped.score)];
      for (const part of parts) if (!part.ok) return { raw, reject: { path: payloadPath(part.issue.path), message: part.issue.message } };
      const platformCase = parseLineValue(m.mapped.case);
      if (!platformCase.ok) return { raw, reject: { path: "input", message: platformCase.issue.message } };
      return { raw, parts, platformCase };
    }
    const part = parseLineValue(value);
    if (!part.ok) return { raw, reject: part.issue };
    return { raw, parts: [part] };
  }

  private resolve(p: Parsed, scoredInBatch: Set<string>): PreparedLine {
    const out: PreparedLine = { line: p.raw.line, text: this.opts.keepText ? (p.raw.text ?? null) : null, category: null };
    if ("reject" in p) return { ...out, reject: p.reject };

    if (p.platformCase?.ok && p.platformCase.kind === "case" && !this.cases.has(p.platformCase.value.ticket.id)) {
      const row = caseRow(p.platformCase.value);
      this.cases.remember(p.platformCase.value, row);
      out.case = { row, ifAbsent: true };
    }
    for (const part of p.parts) {
      if (!part.ok) continue;
      if (part.kind === "case") {
        const conflict = this.takeCase(part.value, out);
        if (conflict) return { ...out, case: undefined, reject: conflict };
      } else if (part.kind === "rollout") {
        if (part.value.case) {
          const conflict = this.takeCase(part.value.case, out);
          if (conflict) return { ...out, case: undefined, reject: { path: "case", message: conflict.message } };
        }
        const rollout = withIdentityDefaults(part.value);
        const known = this.cases.get(rollout.ticket_id);
        out.category = known?.category ?? null;
        const rolloutPart: PreparedLine["rollout"] = { row: rolloutRow(rollout), caseKnown: !!known };
        if (known && !scoredInBatch.has(rollout.trajectory_id)) {
          const entry = ledgerEntryRows(safeScore(rollout, known.doc, this.opts.config));
          if (entry.ok) rolloutPart.score = lighten(entry.rows);
        }
        out.rollout = rolloutPart;
      } else {
        const entry = ledgerEntryRows(part.value);
        if (!entry.ok) return { ...out, reject: { path: entry.path, message: entry.message } };
        out.score = lighten(entry.rows);
        out.category = out.category ?? this.cases.get(entry.rows.values.ticket_id)?.category ?? null;
      }
    }
    return out;
  }

  /** A case from the body: a conflict with one already known (stored or earlier in the body) rejects the line. */
  private takeCase(doc: Case, out: PreparedLine): { path: string; message: string } | null {
    const row = caseRow(doc);
    const known = this.cases.get(doc.ticket.id);
    if (known && known.hash !== row.content_hash) {
      return {
        path: "ticket.id",
        message: `conflict: ticket ${doc.ticket.id} already has a different case (${known.stored ? "stored" : "earlier in this body"}); cases are never overwritten`,
      };
    }
    if (!known) this.cases.remember(doc, row);
    out.case = { row, ifAbsent: false };
    return null;
  }
}

/**
 * Drops the parsed guardrails, reasons and claims from a prepared entry: the write needs only their JSON text and the
 * narrow rows, both already computed. A batch waits about a second before it is written, long enough for V8 to
 * promote whatever it still references to the old generation, where collecting it is expensive.
 */
function lighten(rows: LedgerEntryRows): LedgerEntryRows {
  return { ...rows, values: { ...rows.values, guardrails: [], reasons: [], claims: null } };
}

/** The verifier never throws on valid input; if it ever does, the rollout still gets a record that says why. */
function safeScore(rollout: Rollout, caseDoc: Case, config: VerifierConfig): VerifierScoreRecord {
  try {
    return scoreRollout(rollout, caseDoc, config);
  } catch (err) {
    const reason = makeReason({ code: "input_invalid", path: "", message: `verifier failed on this input: ${(err as Error).message}` });
    return errorRecord("input_error", identityOf(rollout), [reason], config);
  }
}
