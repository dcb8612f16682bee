// docs/verifier.md and docs/formats.md stay true where that is mechanical: the tables of codes, defaults and fields
// against the code that defines them, and every JSON example against its schema and the verifier itself.
import { describe, expect, it } from "vitest";
import { mapPlatformPayload, platformPayloadSchema } from "@/lib/ingest/platform.ts";
import {
  DIMENSION_REASON_CODES,
  DIMENSIONS,
  ERROR_REASON_CODES,
  GUARDRAIL_CODES,
  RECORD_STATUSES,
  WARNING_REASON_CODES,
} from "@/lib/verifier/codes.ts";
import { SECTION_GUARDRAIL } from "@/lib/verifier/compile-case.ts";
import { DEFAULT_CONFIG, VERIFIER_VERSION } from "@/lib/verifier/config.ts";
import {
  caseSchema,
  externalScoreSchema,
  reviewSchema,
  rolloutSchema,
  scoreRecordSchema,
  verifierScoreSchema,
} from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

// Vite reads the files at transform time: this pure folder stays free of node:fs, tests included.
const DOCS = import.meta.glob<string>("../../docs/*.md", { eager: true, query: "?raw", import: "default" });
function doc(name: string): string {
  const text = DOCS[`../../docs/${name}`];
  if (typeof text !== "string") throw new Error(`docs/${name} is missing`);
  return text;
}

/** The text under a heading, up to the next heading of any level. */
function section(md: string, heading: string): string {
  const lines = md.split("\n");
  const start = lines.findIndex((l) => /^#+ /.test(l) && l.replace(/^#+ /, "") === heading);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/** The body rows of the n-th table of a text, as cells (outer pipes dropped, `\|` kept inside a cell). */
function table(text: string, n = 0): string[][] {
  const tables: string[][][] = [];
  let current: string[][] | null = null;
  for (const line of text.split("\n")) {
    if (!line.startsWith("|")) {
      current = null;
      continue;
    }
    if (!current) tables.push((current = []));
    current.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  }
  const t = tables[n];
  if (!t) throw new Error(`no table #${n}`);
  return t.slice(2); // header and separator
}

/** The names in a first cell: "`a`, `b.c`" -> ["a", "b.c"]. */
const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
const jsonBlocks = (text: string) => [...text.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => m[1]);
const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

describe("docs/verifier.md", () => {
  const md = doc("verifier.md");

  it("lists every reason code the verifier emits, and no other", () => {
    const documented = table(section(md, "Reasons")).map((row) => names(row[0])[0]);
    const emitted = [...DIMENSION_REASON_CODES, ...GUARDRAIL_CODES, ...ERROR_REASON_CODES, ...WARNING_REASON_CODES];
    expect(sorted(documented)).toEqual(sorted(emitted));
    expect(documented).toHaveLength(emitted.length);
  });

  it("lists the three record statuses of the record schema", () => {
    const documented = table(section(md, "Status")).map((row) => names(row[0])[0]);
    expect(documented).toEqual([...RECORD_STATUSES]);
    const inSchema = verifierScoreSchema.options.map((o) => o.shape.status.value);
    expect(sorted(inSchema)).toEqual(sorted(RECORD_STATUSES));
  });

  it("gives every guardrail in table order with its default switch and cap", () => {
    const rows = table(section(md, "Guardrails")).map((row) => [names(row[0])[0], row[1], Number(row[2])]);
    expect(rows).toEqual(
      GUARDRAIL_CODES.map((c) => [c, DEFAULT_CONFIG.guardrails[c].on ? "on" : "off", DEFAULT_CONFIG.guardrails[c].cap]),
    );
  });

  it("gives every sub-score with its default weight, and the default hand-off outcome", () => {
    const rows = table(section(md, "Sub-scores")).map((row) => [names(row[0])[0], Number(row[1])]);
    expect(rows).toEqual(DIMENSIONS.map((d) => [d, DEFAULT_CONFIG.weights[d]]));
    expect(section(md, "Sub-scores")).toContain(`the config's \`handoff_outcome\` (${DEFAULT_CONFIG.handoff_outcome})`);
  });

  it("names the sections that only one guardrail reads, and the verifier version", () => {
    const rows = table(section(md, "Spec problems")).map((row) => [names(row[0])[0], names(row[1])[0]]);
    expect(Object.fromEntries(rows)).toEqual(SECTION_GUARDRAIL);
    expect(md).toContain(`Verifier version: \`${VERIFIER_VERSION}\``);
  });
});

describe("docs/formats.md", () => {
  const md = doc("formats.md");
  const part = (n: number) => {
    const heading = md.split("\n").find((l) => l.startsWith(`## ${n}. `));
    if (!heading) throw new Error(`no section ${n}`);
    return section(md, heading.slice(3));
  };
  /** Top-level field names of a field table ("ticket.id" counts as "ticket"). */
  const fields = (text: string, n = 0) =>
    sorted(table(text, n).flatMap((row) => names(row[0]).map((f) => f.split(".")[0])));

  it("documents exactly the fields of each schema", () => {
    expect(fields(part(1))).toEqual(sorted(Object.keys(caseSchema.shape)));
    expect(fields(part(2))).toEqual(sorted(Object.keys(rolloutSchema.shape)));
    const scored = verifierScoreSchema.options.find((o) => o.shape.status.value === "scored");
    expect(fields(part(3))).toEqual(sorted(Object.keys(scored?.shape ?? {})));
    expect(fields(part(3), 1)).toEqual(sorted(Object.keys(externalScoreSchema.shape)));
    expect(fields(part(4))).toEqual(sorted(Object.keys(platformPayloadSchema.shape)));
    expect(fields(part(5))).toEqual(sorted(Object.keys(reviewSchema.shape)));
    // The spec sections of a case.
    expect(fields(part(1), 1)).toEqual(sorted(Object.keys(caseSchema.shape.verifier_spec.shape)));
  });

  it("has examples that validate, and the score record is what the verifier writes for the other two", () => {
    const [caseJson] = jsonBlocks(part(1));
    const [rolloutJson] = jsonBlocks(part(2));
    const [recordJson, externalJson] = jsonBlocks(part(3));
    const caseDoc = caseSchema.parse(JSON.parse(caseJson));
    const rollout = rolloutSchema.parse(JSON.parse(rolloutJson));
    const record = JSON.parse(JSON.stringify(scoreRollout(rollout, caseDoc, DEFAULT_CONFIG)));
    expect(record).toEqual(JSON.parse(recordJson));
    expect(JSON.stringify(record)).toBe(JSON.stringify(JSON.parse(recordJson))); // the field order too
    expect(scoreRecordSchema.parse(JSON.parse(externalJson))).toMatchObject({ source: "external" });

    const [payload] = jsonBlocks(part(4));
    expect(mapPlatformPayload(JSON.parse(payload), 1, {})).toMatchObject({ ok: true });
    const [review] = jsonBlocks(part(5));
    expect(reviewSchema.safeParse(JSON.parse(review)).success).toBe(true);
  });
});
