// `verity score FILE...`: scores every rollout found in the files and writes one score record per rollout as NDJSON
// to stdout, in input order. Cases and rollouts may be mixed and in any order; all files are read before scoring.
import { readFile } from "node:fs/promises";
import { parseInputText, type Item } from "@/lib/cli/score-read.ts";
import { createLlmExtractor } from "@/lib/claims/llm-extractor.ts";
import { readLlmEnv } from "@/lib/claims/llm-env.ts";
import { canonicalJson } from "@/lib/verifier/canonical-json.ts";
import { DEFAULT_CONFIG, parseVerifierConfig, type VerifierConfig } from "@/lib/verifier/config.ts";
import type { ClaimsExtractor } from "@/lib/verifier/extractor.ts";
import { makeReason } from "@/lib/verifier/reasons.ts";
import { depthIssue, idProblem } from "@/lib/verifier/limits.ts";
import { errorRecord, type Identity } from "@/lib/verifier/records.ts";
import { caseSchema, zodIssues, type Case, type VerifierScoreRecord } from "@/lib/verifier/schema.ts";
import { scoreInput, scoreInputWithExtraction } from "@/lib/verifier/score-input.ts";

const USAGE = `usage: verity score [options] FILE...

Scores rollouts with the verifier and writes one score record per rollout (NDJSON) to stdout.
FILE holds JSON (one object or an array) or NDJSON; cases and rollouts may be mixed, in any order and across
files. A rollout names its case by ticket_id or embeds it. Files named *.expected.json are skipped.

options:
  --config FILE         verifier config (JSON, merged onto the defaults)
  --extractor rules|llm claims extractor for rollouts without claims (default: the config's, "rules")
                        llm reads VERITY_LLM_BASE_URL, VERITY_LLM_MODEL and VERITY_LLM_API_KEY
  --concurrency N       LLM calls in flight (default 4)
  -h, --help            this text

exit status: 0 every rollout got a record (scored, spec_error or input_error; errors also go to stderr as
FILE:LINE: path: message), 1 claims extraction failed for some rollout, 2 unusable arguments or files.`;

type Args = { files: string[]; config?: string; extractor?: "rules" | "llm"; concurrency: number; help: boolean };
type Io = { out: (s: string) => Promise<void>; err: (s: string) => void };

export async function run(argv: string[]): Promise<number> {
  const io: Io = {
    out: (s) => new Promise((resolve) => (process.stdout.write(s) ? resolve() : process.stdout.once("drain", resolve))),
    err: (s) => void process.stderr.write(`${s}\n`),
  };
  const args = parseArgs(argv);
  if (typeof args === "string") {
    io.err(`verity score: ${args}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    await io.out(`${USAGE}\n`);
    return 0;
  }

  const config = await loadConfig(args.config, io);
  if (!config) return 2;
  const extractor = makeExtractor(args.extractor ?? config.claims.extractor, io);
  if (extractor === null) return 2;

  const items: Item[] = [];
  for (const file of args.files) {
    if (file.endsWith(".expected.json")) {
      io.err(`verity score: skipping ${file} (an expected-record file, not input)`);
      continue;
    }
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      io.err(`verity score: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return 2;
    }
    const parsed = parseInputText(file, text);
    if (!parsed.ok) {
      io.err(`verity score: ${parsed.message}`);
      return 2;
    }
    items.push(...parsed.items);
  }
  return scoreItems(items, config, extractor, args.concurrency, io);
}

function parseArgs(argv: string[]): Args | string {
  const args: Args = { files: [], concurrency: 4, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] =
      a.startsWith("--") && a.includes("=")
        ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]
        : [a, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "-h" || flag === "--help") args.help = true;
    else if (flag === "--config") {
      const v = value();
      if (!v) return "--config needs a file";
      args.config = v;
    } else if (flag === "--extractor") {
      const v = value();
      if (v !== "rules" && v !== "llm") return `--extractor must be "rules" or "llm", not ${JSON.stringify(v ?? "")}`;
      args.extractor = v;
    } else if (flag === "--concurrency") {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1 || n > 64) return "--concurrency must be an integer from 1 to 64";
      args.concurrency = n;
    } else if (flag === "--") {
      args.files.push(...argv.slice(i + 1));
      break;
    } else if (flag.startsWith("-") && flag !== "-") return `unknown option ${flag}`;
    else args.files.push(a);
  }
  if (!args.help && args.files.length === 0) return "no input files";
  return args;
}

async function loadConfig(file: string | undefined, io: Io): Promise<VerifierConfig | undefined> {
  if (!file) return DEFAULT_CONFIG;
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    io.err(`verity score: cannot use config ${file}: ${(err as Error).message}`);
    return undefined;
  }
  const parsed = parseVerifierConfig(json);
  if (parsed.ok) return parsed.config;
  for (const i of parsed.issues) io.err(`${file}: ${i.path || "(root)"}: ${i.message}`);
  return undefined;
}

/** undefined = score with bundle or rule claims synchronously; null = unusable (message written). */
function makeExtractor(kind: "rules" | "llm", io: Io): ClaimsExtractor | undefined | null {
  if (kind === "rules") return undefined;
  const env = readLlmEnv();
  if (!env.ok) {
    io.err(`verity score: ${env.message}`);
    return null;
  }
  return createLlmExtractor(env.value);
}

type CaseEntry = { caseDoc: Case; item: Item; path: string };

async function scoreItems(
  items: Item[],
  config: VerifierConfig,
  extractor: ClaimsExtractor | undefined,
  concurrency: number,
  io: Io,
): Promise<number> {
  // Pass 1: every case in the files, so a rollout may come before its case. Standalone cases win over embedded ones.
  const cases = new Map<string, CaseEntry>();
  const embedded = new Map<string, CaseEntry>();
  const invalidCases = new Map<string, string>();
  const rollouts: Item[] = [];
  // A value nested past the limit is refused before anything recursive (validation, canonical JSON) meets it.
  const tooDeep = new Map<Item, { path: string; message: string }>();
  for (const item of items) {
    const v = item.value as Record<string, unknown> | undefined;
    const deep = depthIssue(v);
    if (deep) {
      if (isObject(v) && v.kind === "case")
        io.err(`${item.file}:${item.lineOf(deep.path)}: ${deep.path}: ${deep.message}`);
      else {
        tooDeep.set(item, deep);
        rollouts.push(item);
      }
      continue;
    }
    if (isObject(v) && v.kind === "case") registerCase(item, v, "", cases, invalidCases, io);
    else {
      rollouts.push(item);
      if (isObject(v) && isObject(v.case)) registerCase(item, v.case, "case.", embedded, undefined, undefined);
    }
  }
  const lookup = (ticket: string) => (cases.get(ticket) ?? embedded.get(ticket))?.caseDoc;
  const where = (ticket: string) => cases.get(ticket) ?? embedded.get(ticket);

  // Pass 2: score in input order; with an LLM, up to `concurrency` replies are extracted at a time.
  const results: (VerifierScoreRecord | Error)[] = new Array(rollouts.length);
  const scoreOne = async (item: Item): Promise<VerifierScoreRecord> => {
    if (item.syntaxError !== undefined) {
      const reason = makeReason({ code: "input_invalid", path: "", message: `invalid JSON: ${item.syntaxError}` });
      return errorRecord("input_error", nullIdentity, [reason], config);
    }
    const deep = tooDeep.get(item);
    if (deep) {
      const reason = makeReason({ code: "input_invalid", path: deep.path, message: deep.message });
      return errorRecord("input_error", identityOfItem(item.value), [reason], config);
    }
    return extractor
      ? scoreInputWithExtraction(item.value, lookup, config, extractor)
      : scoreInput(item.value, lookup, config);
  };
  let next = 0;
  const worker = async () => {
    while (next < rollouts.length) {
      const i = next++;
      results[i] = await scoreOne(rollouts[i]).catch((err: Error) => err);
    }
  };
  await Promise.all(Array.from({ length: extractor ? concurrency : 1 }, worker));

  let failed = 0;
  let chunk = "";
  for (let i = 0; i < rollouts.length; i++) {
    const item = rollouts[i];
    const r = results[i];
    if (r instanceof Error) {
      failed++;
      io.err(`${item.file}:${item.line}: claims: ${r.message}`);
      continue;
    }
    reportErrors(item, r, where, invalidCases, io);
    chunk += `${JSON.stringify(r)}\n`;
    if (chunk.length > 1 << 16) {
      await io.out(chunk);
      chunk = "";
    }
  }
  if (chunk) await io.out(chunk);
  return failed > 0 ? 1 : 0;
}

const nullIdentity = {
  trajectory_id: null,
  run_id: null,
  step: null,
  ticket_id: null,
  group_id: null,
  sample_index: null,
};

/** The identity fields of a rollout that is not validated, where they are ids (for an input_error record). */
function identityOfItem(value: unknown): Identity {
  const o = isObject(value) ? value : {};
  const idOf = (v: unknown) => (typeof v === "string" && v !== "" && idProblem(v) === null ? v : null);
  const intOf = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : null);
  return {
    trajectory_id: idOf(o.trajectory_id),
    run_id: idOf(o.run_id),
    step: intOf(o.step),
    ticket_id: idOf(o.ticket_id),
    group_id: idOf(o.group_id),
    sample_index: intOf(o.sample_index),
  };
}

function registerCase(
  item: Item,
  value: unknown,
  prefix: string,
  into: Map<string, CaseEntry>,
  invalid: Map<string, string> | undefined,
  io: Io | undefined,
): void {
  const parsed = caseSchema.safeParse(value);
  if (!parsed.success) {
    // Embedded cases are reported with their rollout (as input_error); standalone ones here.
    if (!io || !invalid) return;
    for (const i of zodIssues(parsed.error)) io.err(`${item.file}:${item.lineOf(i.path)}: ${i.path}: ${i.message}`);
    const ticket = (value as { ticket?: { id?: unknown } }).ticket?.id;
    if (typeof ticket === "string") invalid.set(ticket, `${item.file}:${item.line}`);
    return;
  }
  const id = parsed.data.ticket.id;
  const prev = into.get(id);
  if (!prev) into.set(id, { caseDoc: parsed.data, item, path: prefix });
  else if (io && canonicalJson(prev.caseDoc) !== canonicalJson(parsed.data)) {
    io.err(
      `${item.file}:${item.line}: ticket.id: case ${id} is also defined at ${prev.item.file}:${prev.item.line} with different content; the first one is used`,
    );
  }
}

/**
 * stderr lines for a record without a reward, and for the spec warnings of a scored one: `FILE:LINE: path:
 * message`, the line of the offending field.
 */
function reportErrors(
  item: Item,
  r: VerifierScoreRecord,
  where: (ticket: string) => CaseEntry | undefined,
  invalidCases: Map<string, string>,
  io: Io,
): void {
  for (const reason of r.reasons) {
    if (r.status === "scored" && reason.code !== "spec_warning") continue;
    if (r.status !== "input_error") {
      // The offending field is in the case the rollout used: its embedded one, else the one found by ticket.
      const ownCase = isObject(item.value) && isObject(item.value.case);
      const c = ownCase ? { item, path: "case." } : r.ticket_id ? where(r.ticket_id) : undefined;
      const field = (c?.path ?? "") + (reason.field ?? "");
      io.err(
        `${c ? `${c.item.file}:${c.item.lineOf(field)}` : `${item.file}:${item.line}`}: ${field}: ${reason.message}`,
      );
      continue;
    }
    const path = reason.path ?? "";
    const invalidAt = reason.code === "case_missing" && r.ticket_id ? invalidCases.get(r.ticket_id) : undefined;
    const message = invalidAt ? `${reason.message} (the case at ${invalidAt} is invalid)` : reason.message;
    io.err(`${item.file}:${item.lineOf(path)}: ${path || "(root)"}: ${message}`);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
