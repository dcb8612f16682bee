// `verity token` as an operator runs it (a spawned CLI on the test database): the token it prints authenticates
// against the API with exactly its scopes, is stored only as a hash, is listed without its secret, and stops working
// when revoked; creating and revoking are in the activity log; bad arguments exit 2 with the reason.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/admin/mutations.ts";
import { authenticateApi } from "@/lib/auth/api.ts";
import { db } from "@/lib/db/client.ts";

type Run = { code: number; stdout: string; stderr: string };
function verity(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn("npx", ["tsx", "bin/verity.ts", "token", ...args], { env: process.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
const bearer = (token: string) => new Request("http://x/api", { headers: { authorization: `Bearer ${token}` } });

const tag = randomBytes(3).toString("hex");
const admin = `token-admin-${tag}@example.com`;
const annotator = `token-annotator-${tag}@example.com`;

beforeAll(async () => {
  for (const [email, role] of [
    [admin, "admin"],
    [annotator, "annotator"],
  ] as const) {
    const r = await createUser({ email, role, name: "", password: "a long enough password" }, { label: "test" });
    expect(r.ok).toBe(true);
  }
});

describe("verity token (CLI)", () => {
  it("creates a token printed once, alone on stdout, that authenticates with its scopes only", async () => {
    const r = await verity(["create", "--name", `launcher ${tag}`, "--scope", "ingest", "--as", admin]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^vty_[0-9a-f]{8}_[A-Za-z0-9_-]{43}\n$/);
    const token = r.stdout.trim();
    expect(r.stderr).toMatch(
      /created token "launcher .+" \(id \d+, prefix [0-9a-f]{8}, scopes ingest\): it is not shown/,
    );
    expect((await authenticateApi(bearer(token), "ingest")).ok).toBe(true);
    expect((await authenticateApi(bearer(token), "read")).ok).toBe(false);

    const stored = await db().apiToken.findFirstOrThrow({ where: { name: `launcher ${tag}` } });
    expect(stored.hash).not.toContain(token.slice(13));
    const owner = await db().user.findUniqueOrThrow({ where: { email: admin } });
    expect(stored.createdById).toBe(owner.id);

    const list = await verity(["list", "--json"]);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain(token);
    const row = list.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((t) => t.id === stored.id);
    expect(row).toMatchObject({ name: `launcher ${tag}`, prefix: stored.prefix, scopes: ["ingest"], owner: admin });
    expect(row.revokedAt).toBeNull();

    const revoke = await verity(["revoke", stored.prefix]);
    expect(revoke.code, revoke.stderr).toBe(0);
    expect(revoke.stdout).toBe(`revoked token ${stored.id} "launcher ${tag}"\n`);
    expect((await authenticateApi(bearer(token), "ingest")).ok).toBe(false);
    const again = await verity(["revoke", String(stored.id)]);
    expect(again.stdout).toMatch(/was already revoked/);

    const actions = await db().activityLog.findMany({
      where: { targetType: "api_token", targetId: String(stored.id) },
      orderBy: { id: "asc" },
      select: { action: true },
    });
    expect(actions.map((a) => a.action)).toEqual(["token.create", "token.revoke"]);
  }, 180_000);

  it("takes several scopes, repeated or comma-separated", async () => {
    const r = await verity(["create", "--name", `both ${tag}`, "--scope", "read,ingest", "--as", admin]);
    expect(r.code, r.stderr).toBe(0);
    const token = r.stdout.trim();
    expect((await authenticateApi(bearer(token), "read")).ok).toBe(true);
    expect((await authenticateApi(bearer(token), "ingest")).ok).toBe(true);
  });

  it("refuses bad arguments with the reason and exit 2, creating nothing", async () => {
    const before = await db().apiToken.count();
    const cases: [string[], RegExp][] = [
      [["create", "--scope", "ingest", "--as", admin], /--name: Name the token/],
      [["create", "--name", "x", "--as", admin], /--scope: Pick at least one scope/],
      [["create", "--name", "x", "--scope", "write", "--as", admin], /--scope: Scopes are ingest and read/],
      [["create", "--name", "x", "--scope", "ingest", "--as", annotator], /only an admin owns tokens/],
      [["create", "--name", "x", "--scope", "ingest", "--as", `nobody-${tag}@example.com`], /no active user/],
      [["create", "--name", "x", "--scope", "ingest", "--as", "not an email"], /--as:/],
      [["revoke"], /name one token/],
      [["revoke", "zz"], /neither a token id nor a prefix/],
      [["revoke", "00000000"], /no token with prefix 00000000/],
      [["frobnicate"], /unknown subcommand "frobnicate"/],
      [["list", "--bogus"], /Unknown option '--bogus'/],
    ];
    const runs = await Promise.all(cases.map(([args]) => verity(args)));
    for (const [i, [args, message]] of cases.entries()) {
      const r = runs[i];
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout, args.join(" ")).toBe("");
      expect(r.stderr, args.join(" ")).toMatch(message);
    }
    expect(await db().apiToken.count()).toBe(before);
  }, 180_000);
});
