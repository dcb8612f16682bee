// The default claims extractor: phrase patterns from the verifier config, matched against the final reply. Pure and
// synchronous, so scoring with it stays deterministic and fast; the LLM extractor (lib/claims) is the accurate one.
import type { ExtractionInput } from "@/lib/verifier/extractor.ts";
import type { MentionValueKind, RulePatterns } from "@/lib/verifier/rule-patterns.ts";
import type { Claims, Mention } from "@/lib/verifier/schema.ts";

export type RuleExtractor = { name: "rules"; extract(input: ExtractionInput): Claims };

type Compiled = {
  negations: RegExp[];
  writeTools: Map<string, RegExp[]>;
  mentions: Map<string, { value: MentionValueKind; patterns: RegExp[] }>;
  forbidden: Map<string, RegExp[]>;
};

const cache = new WeakMap<RulePatterns, RuleExtractor>();

/** The extractor for a pattern set; compiled once per (frozen) config object. */
export function ruleExtractorFor(patterns: RulePatterns): RuleExtractor {
  let extractor = cache.get(patterns);
  if (!extractor) {
    extractor = createRuleExtractor(patterns);
    cache.set(patterns, extractor);
  }
  return extractor;
}

export function createRuleExtractor(patterns: RulePatterns): RuleExtractor {
  const re = (sources: string[]) => sources.map((s) => new RegExp(s, "iu"));
  const compiled: Compiled = {
    negations: re(patterns.negations),
    writeTools: new Map(Object.entries(patterns.write_tools).map(([k, v]) => [k, re(v)])),
    mentions: new Map(
      Object.entries(patterns.mentions).map(([k, v]) => [k, { value: v.value, patterns: re(v.patterns) }]),
    ),
    forbidden: new Map(Object.entries(patterns.forbidden).map(([k, v]) => [k, re(v)])),
  };
  return { name: "rules", extract: (input) => extract(compiled, input) };
}

// Sentence ends: CJK and ASCII punctuation, new lines, and a "." that is not a decimal point.
const CLAUSE_END = /[。!?;\n]+|\.(?!\d)/;

function extract(c: Compiled, input: ExtractionInput): Claims {
  // NFKC folds full-width digits and punctuation ("５９．９９" -> "59.99", "！" -> "!").
  const text = input.final_reply.normalize("NFKC");
  // Write patterns run once over the affirmative clauses joined by "。", which no pattern matches or crosses
  // (patterns stay inside a sentence), instead of once per clause.
  const affirmative = text
    .split(CLAUSE_END)
    .filter((s) => s.trim() !== "" && !c.negations.some((n) => n.test(s)))
    .join("。");

  const claimed_writes = input.write_tools.filter((tool) => c.writeTools.get(tool)?.some((r) => r.test(affirmative)));

  const mentioned: Mention[] = [];
  for (const key of input.mention_keys) {
    const m = c.mentions.get(key);
    if (!m) continue;
    for (const r of m.patterns) {
      const hit = r.exec(text);
      if (!hit) continue;
      const captured = hit.groups?.value;
      mentioned.push(
        captured === undefined || m.value === "none" ? { key } : { key, value: parseValue(captured, m.value) },
      );
      break;
    }
  }

  const forbidden_hits = input.forbidden_codes.filter((code) => c.forbidden.get(code)?.some((r) => r.test(text)));
  return { claimed_writes, mentioned, forbidden_hits };
}

function parseValue(raw: string, kind: MentionValueKind): string | number {
  const s = raw.trim().replace(/\s+/g, " ");
  if (kind === "number") return parseAmount(s) ?? s;
  if (kind === "date") return normaliseDate(s) ?? s;
  return s;
}

/** "1,234.50" -> 1234.5, "59,99" -> 59.99 (decimal comma), "1 234" -> 1234; otherwise undefined. */
export function parseAmount(s: string): number | undefined {
  let t = s.replace(/ /g, "");
  if (/^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(t)) t = t.replace(/,/g, "");
  else if (/^\d+,\d{1,2}$/.test(t)) t = t.replace(",", ".");
  return /^\d+(?:\.\d+)?$/.test(t) ? Number(t) : undefined;
}

/** "2026年11月5日" or "2026/11/5" -> "2026-11-05". */
function normaliseDate(s: string): string | undefined {
  const m = /^(\d{4})[-/年](\d{1,2})[-/月](\d{1,2})日?$/.exec(s);
  return m ? `${m[1]}-${m[2].padStart(2, "0")}-${m[3].padStart(2, "0")}` : undefined;
}
