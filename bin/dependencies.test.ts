// Prisma's packages are released together: the CLI that generates the client, the client and the driver adapter must
// be the very same version, pinned exactly, or the generated client and its runtime can disagree at a patch.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string }>;
};
const PRISMA = ["prisma", "@prisma/client", "@prisma/adapter-pg"];

describe("dependencies", () => {
  it("pins prisma, @prisma/client and @prisma/adapter-pg to one exact version, in package.json and the lock", () => {
    const declared = PRISMA.map((name) => pkg.dependencies[name] ?? pkg.devDependencies[name]);
    expect(
      declared.every((v) => /^\d+\.\d+\.\d+$/.test(v ?? "")),
      declared.join(", "),
    ).toBe(true);
    expect(new Set(declared).size, declared.join(", ")).toBe(1);
    const locked = PRISMA.map((name) => lock.packages[`node_modules/${name}`]?.version);
    expect(locked).toEqual(declared);
  });
});
