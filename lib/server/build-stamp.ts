import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

// A production build is reused while nothing it was built from changed: the stamp is a hash over the paths,
// sizes and modification times of the sources, written next to the build.
const SOURCES = [
  "app",
  "components",
  "lib",
  "prisma/schema.prisma",
  "next.config.ts",
  "package-lock.json",
  "postcss.config.mjs",
  "tsconfig.json",
];
const SKIP = new Set(["generated", "node_modules", ".next"]);

function walk(p: string, out: string[]): void {
  if (!fs.existsSync(p)) return;
  const st = fs.statSync(p);
  if (st.isDirectory()) {
    for (const name of fs.readdirSync(p).sort()) if (!SKIP.has(name)) walk(path.join(p, name), out);
  } else if (!/\.test\.tsx?$/.test(p)) {
    out.push(`${p}:${st.size}:${st.mtimeMs}`);
  }
}

export function sourceStamp(root = process.cwd()): string {
  const entries: string[] = [];
  for (const s of SOURCES) walk(path.join(root, s), entries);
  return crypto.createHash("sha256").update(entries.join("\n")).digest("hex");
}

const stampFile = (root: string) => path.join(root, ".next", "verity-build-stamp");

export function buildIsCurrent(root = process.cwd()): boolean {
  const f = stampFile(root);
  return (
    fs.existsSync(path.join(root, ".next", "BUILD_ID")) &&
    fs.existsSync(f) &&
    fs.readFileSync(f, "utf8") === sourceStamp(root)
  );
}

export function recordBuild(root = process.cwd()): void {
  fs.writeFileSync(stampFile(root), sourceStamp(root));
}
