import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signInWithPassword } from "@/lib/auth/mutations.ts";
import { db } from "@/lib/db/client.ts";

function verity(args: string[], stdin = ""): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("npx", ["tsx", "bin/verity.ts", ...args], {
      env: process.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe("verity user (CLI)", () => {
  it("creates an admin with the password from stdin, which then signs in; nothing echoes the password", async () => {
    const email = `first-admin-${randomBytes(4).toString("hex")}@example.com`;
    const password = "correct horse battery staple";
    const r = await verity(
      ["user", "create", "--role", "admin", "--email", email, "--password-stdin"],
      password + "\n",
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^created ${email} \\(admin\\), id \\d+\\n$`));
    expect(r.stdout + r.stderr).not.toContain(password);
    const signIn = await signInWithPassword({ email, password });
    expect(signIn.ok && signIn.user.role).toBe("admin");
    const log = await db().activityLog.findFirstOrThrow({
      where: { action: "user.create", details: { path: ["email"], equals: email } },
    });
    expect(log.actorLabel).toBe("cli");

    const dup = await verity(["user", "create", "--role", "admin", "--email", email, "--password-stdin"], password);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain("A user with this email already exists.");
  }, 60_000);

  it("refuses bad input with a readable message and usage errors with code 2", async () => {
    const weak = await verity(
      ["user", "create", "--role", "admin", "--email", "x@example.com", "--password-stdin"],
      "short",
    );
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain("password: At least 10 characters.");
    const role = await verity(
      ["user", "create", "--role", "boss", "--email", "x@example.com", "--password-stdin"],
      "long enough password",
    );
    expect(role.code).toBe(1);
    expect(role.stderr).toMatch(/role Pick a role/);
    const noTty = await verity(["user", "create", "--role", "admin", "--email", "y@example.com"]);
    expect(noTty.code).toBe(1);
    expect(noTty.stderr).toContain("--password-stdin");
    expect((await verity(["user", "frobnicate"])).code).toBe(2);
    expect((await verity(["user", "create", "--bogus"])).code).toBe(2);
  }, 60_000);
});
