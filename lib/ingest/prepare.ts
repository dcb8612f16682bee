// The CPU half of ingest: decode, validate, hash and (for rollouts whose case is known) score one batch of lines.
// It runs while the previous batch is being written, so Node's work overlaps with PostgreSQL's. Nothing here
// decides "new or unchanged": that needs the database under the ingest lock (see write-batch.ts).
import type pg from "pg";
import { CaseCache } from "@/lib/ledger/store/case-cache.ts";
import { platformMapper, type LineMapper, type PlatformDefaults } from "@/lib/ingest/platform.ts";
import { ledgerEntryRows, type LedgerEntryRows } from "@/lib/ledger/store/ledger-rows.ts";
import { caseRow, rolloutRow, withIdentityDefaults, type RolloutRow } from "@/lib/ledger/store/rows.ts";
import { parseLineValue, type IngestFormat, type ParsedLine } from "@/lib/ingest/schema.ts";
import type { RevisionMarker } from "@/lib/ledger/store/case-version.ts";
import type { PreparedLine } from "@/lib/ledger/store/write-batch.ts";
import { DEFAULT_CONFIG, type VerifierConfig } from "@/lib/verifier/config.ts";
import { depthIssue, depthIssueOfText, unstorableIssue } from "@/lib/verifier/limits.ts";
import { makeReason } from "@/lib/verifier/reasons.ts";
import { errorRecord } from "@/lib/verifier/records.ts";
import type { Case, Rollout, VerifierScoreRecord } from "@/lib/verifier/schema.ts";
import { identityOf, scoreRollout } from "@/lib/verifier/score.ts";

/** A line as read: decoded text (NDJSON) or an already-built value (the demo generator), or why it is unusable. */
export type RawLine = { line: number; text?: string | null; value?: unknown; error?: string };

export type PrepareOptions = {
  format: IngestFormat;
  defaults: PlatformDefaults;
  /** Maps each line before validation (importers); without it, `format: "platform"` maps reward-platform payloads. */
  mapper?: LineMapper;
  config: VerifierConfig;
  /** Keep each line's text until its batch is written (only --rejects needs it; it doubles what a batch holds). */
  keepText?: boolean;
};

/** A validated part of a line with what can be derived from it alone (rows, hashes), computed as the line arrives. */
type Part =
  | { kind: "case"; value: Case; revision?: RevisionMarker }
  | {
      kind: "rollout";
      row: RolloutRow;
      /** The rollout with its identity defaults, kept only while the verifier may still have to score it (no score
       * record for it in the batch so far). */
      value: Rollout | null;
      embeddedCase?: Case;
      ticketId: string;
      trajectoryId: string;
    }
  | { kind: "score"; entry: ReturnType<typeof ledgerEntryRows>; ticketId: string | null };

type Parsed =
  | { line: number; text: string | null; parts: Part[]; platformCase?: Case }
  | { line: number; text: string | null; reject: { path: string; message: string } };

// PostgreSQL text and jsonb cannot hold U+0000, and jsonb rejects unpaired surrogates. Checked up front so one such
// line is rejected instead of failing its whole batch.
const NUL = /(^|[^\\])(\\\\)*\\u0000/;
const MAYBE_SURROGATE = /\\u[dD][89a-fA-F]/;

function unstorable(text: string, value: unknown): { path: string; message: string } | null {
  // Nearly every line has no "\u" escape at all: one indexOf settles it.
  if (text.indexOf("\\u") < 0) return null;
  const nul = text.indexOf("\\u0000") >= 0 && NUL.test(text);
  if (!nul && !MAYBE_SURROGATE.test(text)) return null;
  // Found by walking the value, so the field is named (the line's depth is checked first).
  return unstorableIssue(value);
}

// Resolving a batch that holds rollouts to score takes long enough (the verifier: tens of ms per thousand) that the
// batch being written meanwhile would stall between its queries; yielding now and then lets its round trips proceed.
const YIELD_EVERY = 16;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Prepares the lines of one batch after another. Each line is parsed, validated and turned into its rows as it
 * arrives (`add`), so what a batch holds until it is written is its rows, not the parsed documents: those die young,
 * which keeps V8's garbage collection cheap. What needs the whole batch or the database — the cases of its tickets,
 * whether the verifier scores a rollout (not when the batch brings its score record), conflicts between cases — is
 * settled in `take`.
 */
export class Preparer {
  readonly cases = new CaseCache();
  private parsed: Parsed[] = [];
  private tickets = new Set<string>();
  /** Trajectories with a score record in this batch: the verifier does not score their rollouts. */
  private scored = new Set<string>();
  /** Rollouts of this batch the verifier may still have to score, by trajectory. */
  private unscored = new Map<string, Extract<Part, { kind: "rollout" }>[]>();

  private readonly mapper: LineMapper | null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: PrepareOptions = { format: "ndjson", defaults: {}, config: DEFAULT_CONFIG },
  ) {
    this.mapper = opts.mapper ?? (opts.format === "platform" ? platformMapper(opts.defaults) : null);
  }

  /** Lines added since the last `take`. */
  get size(): number {
    return this.parsed.length;
  }

  /** Parses, validates and derives the rows of one line of the current batch. */
  add(raw: RawLine): void {
    const p = this.parseGuarded(raw);
    this.parsed.push(p);
    if ("reject" in p) return;
    for (const part of p.parts) {
      if (part.kind === "case") this.tickets.add(part.value.ticket.id);
      else if (part.kind === "rollout") {
        this.tickets.add(part.ticketId);
        if (this.scored.has(part.trajectoryId)) part.value = null;
        else {
          const list = this.unscored.get(part.trajectoryId);
          if (list) list.push(part);
          else this.unscored.set(part.trajectoryId, [part]);
        }
      } else if (part.ticketId) this.tickets.add(part.ticketId);
    }
  }

  /** Completes the current batch (reads the cases it needs, scores what has no score record) and starts the next. */
  async take(): Promise<PreparedLine[]> {
    const parsed = this.parsed;
    const tickets = this.tickets;
    this.parsed = [];
    this.tickets = new Set();
    this.scored = new Set();
    this.unscored = new Map();
    await this.cases.load(this.pool, tickets);
    const out: PreparedLine[] = [];
    for (let i = 0; i < parsed.length; i++) {
      out.push(this.resolveGuarded(parsed[i]));
      if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToEventLoop();
    }
    return out;
  }

  /** One whole batch at once (`add` for each line, then `take`). */
  async prepare(batch: RawLine[]): Promise<PreparedLine[]> {
    for (const raw of batch) this.add(raw);
    return this.take();
  }

  /** parse, and if it throws all the same (a bug, or a limit not checked for), that line alone is rejected. */
  private parseGuarded(raw: RawLine): Parsed {
    try {
      return this.parse(raw);
    } catch (err) {
      const text = this.opts.keepText ? (raw.text ?? null) : null;
      return { line: raw.line, text, reject: { path: "", message: `cannot be prepared: ${(err as Error).message}` } };
    }
  }

  private parse(raw: RawLine): Parsed {
    const head = { line: raw.line, text: this.opts.keepText ? (raw.text ?? null) : null };
    if (raw.error) return { ...head, reject: { path: "", message: raw.error } };
    let value = raw.value;
    if (raw.text !== undefined && raw.text !== null) {
      try {
        value = JSON.parse(raw.text);
      } catch (err) {
        return { ...head, reject: { path: "", message: `invalid JSON: ${(err as Error).message}` } };
      }
      // Before anything recursive (validation, hashing, JSON.stringify) meets the value.
      const deep = depthIssueOfText(raw.text, value);
      if (deep) return { ...head, reject: deep };
      const bad = unstorable(raw.text, value);
      if (bad) return { ...head, reject: bad };
    } else {
      const deep = depthIssue(value);
      if (deep) return { ...head, reject: deep };
    }
    if (this.mapper) {
      const m = this.mapper.map(value, raw.line);
      if (!m.ok) return { ...head, reject: m.issue };
      const valid: Extract<ParsedLine, { ok: true }>[] = [];
      for (const part of ["rollout", "score"] as const) {
        const l = parseLineValue(m.mapped[part]);
        if (!l.ok) return { ...head, reject: this.mapper.locate(part, l.issue) };
        valid.push(l);
      }
      const platformCase = parseLineValue(m.mapped.case);
      if (!platformCase.ok) return { ...head, reject: this.mapper.locate("case", platformCase.issue) };
      return {
        ...head,
        parts: valid.map((l) => this.derive(l)),
        platformCase: platformCase.kind === "case" ? platformCase.value : undefined,
      };
    }
    const l = parseLineValue(value);
    if (!l.ok) return { ...head, reject: l.issue };
    return { ...head, parts: [this.derive(l)] };
  }

  /** What a validated part gives by itself: a rollout's row, a score record's ledger rows. */
  private derive(l: Extract<ParsedLine, { ok: true }>): Part {
    if (l.kind === "case") return { kind: "case", value: l.value, revision: l.revision };
    if (l.kind === "rollout") {
      const rollout = withIdentityDefaults(l.value);
      return {
        kind: "rollout",
        row: rolloutRow(rollout),
        value: rollout,
        embeddedCase: l.value.case,
        ticketId: rollout.ticket_id,
        trajectoryId: rollout.trajectory_id,
      };
    }
    const trajectory = l.value.trajectory_id;
    if (trajectory) {
      this.scored.add(trajectory);
      // Rollouts earlier in the batch: their record is here, the verifier will not score them.
      for (const part of this.unscored.get(trajectory) ?? []) part.value = null;
      this.unscored.delete(trajectory);
    }
    const entry = ledgerEntryRows(l.value);
    return {
      kind: "score",
      entry: entry.ok ? { ok: true, rows: lighten(entry.rows) } : entry,
      ticketId: l.value.ticket_id ?? null,
    };
  }

  private resolveGuarded(p: Parsed): PreparedLine {
    try {
      return this.resolve(p);
    } catch (err) {
      const reject = { path: "", message: `cannot be prepared: ${(err as Error).message}` };
      return { line: p.line, text: p.text, category: null, reject };
    }
  }

  private resolve(p: Parsed): PreparedLine {
    const out: PreparedLine = { line: p.line, text: p.text, category: null };
    if ("reject" in p) return { ...out, reject: p.reject };

    if (p.platformCase && !this.cases.has(p.platformCase.ticket.id)) {
      const row = caseRow(p.platformCase);
      this.cases.remember(p.platformCase, row);
      out.case = { row, ifAbsent: true };
    }
    for (const part of p.parts) {
      if (part.kind === "case") {
        const conflict = this.takeCase(part.value, out, part.revision);
        if (conflict) return { ...out, case: undefined, reject: conflict };
      } else if (part.kind === "rollout") {
        if (part.embeddedCase) {
          const conflict = this.takeCase(part.embeddedCase, out);
          if (conflict) return { ...out, case: undefined, reject: { path: "case", message: conflict.message } };
        }
        const known = this.cases.get(part.ticketId);
        out.category = known?.category ?? null;
        const rolloutPart: PreparedLine["rollout"] = { row: part.row, caseKnown: !!known };
        if (known && part.value) {
          const entry = ledgerEntryRows(safeScore(part.value, known.doc, this.opts.config));
          if (entry.ok) Object.assign(rolloutPart, { score: lighten(entry.rows), caseVersion: known.version });
        }
        out.rollout = rolloutPart;
      } else {
        if (!part.entry.ok) return { ...out, reject: { path: part.entry.path, message: part.entry.message } };
        out.score = part.entry.rows;
        out.category = out.category ?? this.cases.get(part.entry.rows.values.ticket_id)?.category ?? null;
      }
    }
    return out;
  }

  /**
   * A case from the body: a conflict with one already known (stored or earlier in the body) rejects the line, unless
   * the line is marked as a revision; then the rollouts after it are scored under the revised case, as the version
   * after the known one (the write decides the stored number under the ledger lock, see write-batch.ts).
   */
  private takeCase(doc: Case, out: PreparedLine, revision?: RevisionMarker): { path: string; message: string } | null {
    const row = caseRow(doc);
    const known = this.cases.get(doc.ticket.id);
    if (known && known.hash !== row.content_hash) {
      if (!revision)
        return {
          path: "ticket.id",
          message: `conflict: ticket ${doc.ticket.id} already has a different case (${known.stored ? "stored" : "earlier in this body"}); cases are never overwritten unless the line says "revision": {"reason": …}`,
        };
      if (row.category !== known.category)
        return {
          path: "ticket.category",
          message: `a revision cannot change the ticket's category (${JSON.stringify(known.category)}): the ledger files its entries under it`,
        };
      this.cases.remember(doc, row, known.version + 1);
    }
    if (!known) this.cases.remember(doc, row);
    out.case = { row, ifAbsent: false, ...(revision ? { revision } : {}) };
    return null;
  }
}

/**
 * Drops the parsed guardrails, reasons and claims and their JSON text from a prepared entry: the write needs only its
 * encoded COPY row and the narrow rows, both already computed. A batch waits about a second before it is written,
 * long enough for V8 to promote whatever it still references to the old generation, where collecting it is expensive.
 */
function lighten(rows: LedgerEntryRows): LedgerEntryRows {
  // In place: the rows were built for this line alone (ledgerEntryRows), nothing else holds them.
  rows.values.guardrails = [];
  rows.values.reasons = [];
  rows.values.claims = null;
  rows.json = { guardrails: "", reasons: "", claims: null };
  return rows;
}

/** The verifier never throws on valid input; if it ever does, the rollout still gets a record that says why. */
function safeScore(rollout: Rollout, caseDoc: Case, config: VerifierConfig): VerifierScoreRecord {
  try {
    return scoreRollout(rollout, caseDoc, config);
  } catch (err) {
    const reason = makeReason({
      code: "input_invalid",
      path: "",
      message: `verifier failed on this input: ${(err as Error).message}`,
    });
    return errorRecord("input_error", identityOf(rollout), [reason], config);
  }
}
