import { describe, expect, it } from "vitest";
import { readMigrations } from "@/lib/db/migrate.ts";
import { splitSqlStatements } from "@/lib/db/sql-statements.ts";

describe("splitSqlStatements", () => {
  it("splits at the semicolons that end a statement, keeping those in strings, identifiers, bodies and comments", () => {
    const sql = `-- a comment; not a statement
CREATE TABLE "a;b" (x text DEFAULT 'it''s; here');
/* block; comment */ SELECT 1;
CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1; RAISE NOTICE 'x;';
END $$;
CREATE FUNCTION g(a int) RETURNS int LANGUAGE sql AS $body$ SELECT $1; $body$;
SELECT f()
-- trailing comment only
`;
    expect(splitSqlStatements(sql)).toEqual([
      `-- a comment; not a statement\nCREATE TABLE "a;b" (x text DEFAULT 'it''s; here')`,
      "/* block; comment */ SELECT 1",
      "CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM 1; RAISE NOTICE 'x;';\nEND $$",
      "CREATE FUNCTION g(a int) RETURNS int LANGUAGE sql AS $body$ SELECT $1; $body$",
      "SELECT f()\n-- trailing comment only",
    ]);
  });

  it("answers nothing for nothing, and refuses an unterminated string or body", () => {
    expect(splitSqlStatements("")).toEqual([]);
    expect(splitSqlStatements("  -- only a comment\n;;")).toEqual([]);
    expect(() => splitSqlStatements("select 'open")).toThrow(/unterminated string at offset 7/);
    expect(() => splitSqlStatements("do $$ begin")).toThrow(/unterminated dollar-quoted string \$\$/);
  });

  it("splits every migration into its statements, in order, with nothing but semicolons and comments between them", () => {
    // between two statements (and around them) only whitespace, `;` and comments: a statement dropped, or cut short,
    // would leave its text in a gap
    const between = /^(?:\s|;|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*$/;
    for (const m of readMigrations()) {
      const parts = splitSqlStatements(m.sql);
      expect(parts.length, m.name).toBeGreaterThan(0);
      let at = 0;
      for (const p of parts) {
        const found = m.sql.indexOf(p, at);
        expect(found, `${m.name}: ${p.slice(0, 60)}`).toBeGreaterThanOrEqual(at);
        expect(m.sql.slice(at, found), m.name).toMatch(between);
        at = found + p.length;
      }
      expect(m.sql.slice(at), m.name).toMatch(between);
    }
  });
});
