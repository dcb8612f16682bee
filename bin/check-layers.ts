// The layer check of `npm test -- static` (docs/architecture.md): every import of product code points down the
// layers, and no two lib/ folders reach each other, directly or round a longer circle. Imports are read with the
// TypeScript scanner: static imports, `export … from`, dynamic `import()` and `typeof import()` all count (a dynamic
// import that dodges the layering is still an import). Tests and their fixtures are left out: they may reach anywhere.
// Exceptions live in docs/layers-allowlist.json, each with its reason; the list may only shrink (MAX_ALLOWED).
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The allowlist may hold at most this many entries; lower it when one is removed, never raise it. */
export const MAX_ALLOWED = 5;
export const ALLOWLIST = "docs/layers-allowlist.json";

/**
 * The layers, highest first: a file may import its own layer and the ones below it. A file belongs to the first
 * layer one of whose patterns it matches, trying `LAYER_MATCH_ORDER` (the narrow patterns before `lib/**`).
 * `*` stands for one path segment's characters, `**` for any number of segments.
 */
export const LAYERS = [
  {
    name: "entry",
    why: "entry points: pages and routes, the CLI, scripts, benchmarks, test support",
    patterns: ["*.ts", "*.mts", "app/**", "bin/**", "bench/**", "e2e/**", "prisma/**", "lib/cli/**", "lib/testing/**"],
  },
  { name: "components", why: "UI", patterns: ["components/**"] },
  {
    name: "seed",
    why: "demo data generation, which may use any feature to build its data",
    patterns: ["lib/demo/**"],
  },
  {
    name: "actions",
    why: "server actions: the entry points the UI calls, one file per feature",
    patterns: ["lib/actions/**"],
  },
  {
    name: "server",
    why: "the server's composition: what follows a write, request plumbing",
    patterns: ["lib/server/**"],
  },
  { name: "feature", why: "lib/<feature>: one domain each", patterns: ["lib/**"] },
  {
    name: "core",
    why: "the ledger's store, the pure verifier and statistics, the database and the environment",
    patterns: ["lib/ledger/store/**", "lib/verifier/**", "lib/stats/**", "lib/db/**", "lib/generated/**", "lib/env.ts"],
  },
] as const;

export type LayerName = (typeof LAYERS)[number]["name"];
const LAYER_MATCH_ORDER: LayerName[] = ["seed", "actions", "core", "server", "entry", "components", "feature"];
/** The layers whose lib/ folders must form no circle (the layers above compose them and are held by direction). */
const FOLDER_LAYERS = new Set<LayerName>(["feature", "core"]);

const SKIP_DIRS = new Set(["node_modules", ".next", ".data", ".git", "test-results", "playwright-report", "generated"]);
const isTest = (f: string) => /\.(test|spec)\.tsx?$/.test(f) || /(^|\/)fixtures\//.test(f);

export type Edge = { from: string; to: string };
export type AllowEntry = Edge & { reason: string };
export type Violation = Edge & { kind: "upward" | "cycle"; detail: string };
export type LayerReport = { violations: Violation[]; stale: AllowEntry[]; errors: string[]; files: number };

function globRegex(glob: string): RegExp {
  const re = glob
    .split("/")
    .map((seg) => (seg === "**" ? "(?:.+)" : seg.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")))
    .join("/");
  return new RegExp(`^${re.replace("/(?:.+)", "(?:/.+)?")}$`);
}

const matchers = LAYER_MATCH_ORDER.map((name) => ({
  name,
  res: LAYERS.find((l) => l.name === name)!.patterns.map(globRegex),
}));
const rank = new Map<LayerName, number>(LAYERS.map((l, i) => [l.name, LAYERS.length - i]));

/** The layer a repository path (with `/`) belongs to; null for a file outside every layer. */
export function layerOf(file: string): LayerName | null {
  for (const m of matchers) if (m.res.some((re) => re.test(file))) return m.name;
  return null;
}

/** The unit of the folder graph: `lib/<folder>/`, or a file directly under lib/ (lib/env.ts). */
export function folderOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? `lib/${parts[1]}/` : file;
}

/** Every TypeScript source under `root` (repository paths), skipping dependencies, build output and generated code. */
export function sourceFiles(root: string, dir = ""): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) out.push(...sourceFiles(root, rel));
    } else if (/\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

/** The repository files a source imports (`@/` and relative specifiers that name a file of `known`). */
export function importsOf(root: string, file: string, known: Set<string>): string[] {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  const found = new Set<string>();
  for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
    const base = spec.startsWith("@/")
      ? spec.slice(2)
      : spec.startsWith(".")
        ? path.posix.normalize(path.posix.join(path.posix.dirname(file), spec))
        : null;
    if (base === null) continue;
    const hit = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((c) => known.has(c));
    if (hit && hit !== file) found.add(hit);
  }
  return [...found];
}

/** The imports of the product code (tests and fixtures left out), as file → file edges. */
export function productEdges(root: string): { edges: Edge[]; files: number } {
  const files = sourceFiles(root);
  const known = new Set(files);
  const edges: Edge[] = [];
  for (const from of files) {
    if (isTest(from)) continue;
    for (const to of importsOf(root, from, known)) if (!isTest(to)) edges.push({ from, to });
  }
  return { edges, files: files.length };
}

/** Imports from a lower layer to a higher one. */
export function upwardImports(edges: Edge[]): Violation[] {
  const out: Violation[] = [];
  for (const e of edges) {
    const a = layerOf(e.from);
    const b = layerOf(e.to);
    if (a && b && rank.get(a)! < rank.get(b)!) out.push({ ...e, kind: "upward", detail: `${a} must not import ${b}` });
  }
  return out;
}

/** The circles of the lib/ folder graph (feature and core files), each as the file imports that close it. */
export function folderCycles(edges: Edge[]): Violation[] {
  const graph = new Map<string, Map<string, Edge[]>>();
  for (const e of edges) {
    if (!FOLDER_LAYERS.has(layerOf(e.from)!) || !FOLDER_LAYERS.has(layerOf(e.to)!)) continue;
    const a = folderOf(e.from);
    const b = folderOf(e.to);
    if (a === b) continue;
    if (!graph.has(a)) graph.set(a, new Map());
    if (!graph.has(b)) graph.set(b, new Map());
    const via = graph.get(a)!;
    via.set(b, [...(via.get(b) ?? []), e]);
  }
  const out: Violation[] = [];
  for (const knot of stronglyConnected(graph)) {
    const inside = new Set(knot);
    const names = [...knot].sort().join(" ");
    for (const a of knot)
      for (const [b, via] of graph.get(a)!)
        if (inside.has(b))
          for (const e of via) out.push({ ...e, kind: "cycle", detail: `folders in a circle: ${names}` });
  }
  return out;
}

/** Tarjan's strongly connected components with more than one node. */
function stronglyConnected(graph: Map<string, Map<string, unknown>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const knots: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)!.keys()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const knot: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      knot.push(w);
    } while (w !== v);
    if (knot.length > 1) knots.push(knot);
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return knots;
}

/** The allowlist of `root`, checked: at most MAX_ALLOWED entries, each an import with its reason. */
export function readAllowlist(root: string): { entries: AllowEntry[]; errors: string[] } {
  const file = path.join(root, ALLOWLIST);
  if (!fs.existsSync(file)) return { entries: [], errors: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    return { entries: [], errors: [`${ALLOWLIST}: not JSON (${(err as Error).message})`] };
  }
  if (!Array.isArray(parsed)) return { entries: [], errors: [`${ALLOWLIST}: expected an array of entries`] };
  const errors: string[] = [];
  const entries: AllowEntry[] = [];
  parsed.forEach((e: Partial<AllowEntry>, i) => {
    const ok = typeof e?.from === "string" && typeof e.to === "string" && typeof e.reason === "string";
    if (!ok || !e.reason!.trim()) errors.push(`${ALLOWLIST}[${i}]: expected { from, to, reason } with a reason`);
    else entries.push(e as AllowEntry);
  });
  if (parsed.length > MAX_ALLOWED)
    errors.push(`${ALLOWLIST}: ${parsed.length} entries, at most ${MAX_ALLOWED} (the list may only shrink)`);
  return { entries, errors };
}

/** Checks the repository at `root`: upward imports and folder circles not in its allowlist, and stale entries. */
export function checkLayers(root: string): LayerReport {
  const { edges, files } = productEdges(root);
  const allow = readAllowlist(root);
  const allowed = (e: Edge) => allow.entries.some((a) => a.from === e.from && a.to === e.to);
  // An allowed import is left out of the graph, so the circle it closes is not reported either.
  const kept = edges.filter((e) => !allowed(e));
  const violations = [...upwardImports(kept), ...folderCycles(kept)];
  const used = (a: AllowEntry) =>
    edges.some((e) => e.from === a.from && e.to === a.to) &&
    [...upwardImports(edges), ...folderCycles(edges)].some((v) => v.from === a.from && v.to === a.to);
  return { violations, stale: allow.entries.filter((a) => !used(a)), errors: allow.errors, files };
}

export function formatReport(r: LayerReport): string[] {
  const lines = r.violations.map(
    (v) => `${v.kind === "upward" ? "upward import" : "folder circle"}: ${v.from} -> ${v.to} (${v.detail})`,
  );
  for (const s of r.stale) lines.push(`${ALLOWLIST}: ${s.from} -> ${s.to} is no longer needed: remove it`);
  return [...lines, ...r.errors];
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const report = checkLayers(process.argv[2] ?? process.cwd());
  const problems = formatReport(report);
  for (const line of problems) console.error(line);
  console.log(`layers: ${report.files} files, ${problems.length} problem${problems.length === 1 ? "" : "s"}`);
  process.exit(problems.length ? 1 : 0);
}
