/**
 * A migration's SQL as its statements, in order, each without its closing semicolon: split at the semicolons that end
 * a statement, not at those inside a quoted string or identifier, a dollar-quoted body (`$$ … $$`, `$fn$ … $fn$`) or
 * a comment. Statements that hold only comments and blanks are left out; comments inside a statement are kept.
 */
export function splitSqlStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const push = (end: number) => {
    const text = sql.slice(start, end).trim();
    if (stripComments(text).trim()) out.push(text);
  };
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === "'" || ch === '"') i = closingQuote(sql, i, ch);
    else if (ch === "-" && sql[i + 1] === "-") i = lineEnd(sql, i);
    else if (ch === "/" && sql[i + 1] === "*") i = blockCommentEnd(sql, i);
    else if (ch === "$" && dollarTag(sql, i)) {
      const tag = dollarTag(sql, i)!;
      const end = sql.indexOf(tag, i + tag.length);
      if (end < 0) throw new Error(`unterminated dollar-quoted string ${tag} at offset ${i}`);
      i = end + tag.length;
    } else if (ch === ";") {
      push(i);
      start = ++i;
    } else i++;
  }
  push(sql.length);
  return out;
}

/** The dollar-quote tag starting at `i` (`$$`, `$body$`), or null when the `$` there opens none (`$1`). */
function dollarTag(sql: string, i: number): string | null {
  const m = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
  return m && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? "") ? m[0] : null;
}

/** The offset after the quote closing the one at `i` (a doubled quote inside is part of the text). */
function closingQuote(sql: string, i: number, q: string): number {
  let j = i + 1;
  for (;;) {
    const k = sql.indexOf(q, j);
    if (k < 0) throw new Error(`unterminated ${q === "'" ? "string" : "quoted identifier"} at offset ${i}`);
    if (sql[k + 1] === q) j = k + 2;
    else return k + 1;
  }
}

function lineEnd(sql: string, i: number): number {
  const k = sql.indexOf("\n", i);
  return k < 0 ? sql.length : k + 1;
}

function blockCommentEnd(sql: string, i: number): number {
  const k = sql.indexOf("*/", i + 2);
  if (k < 0) throw new Error(`unterminated comment at offset ${i}`);
  return k + 2;
}

/**
 * `text` without its comments, strings not told apart: to test whether a piece of SQL says anything at all, or to match
 * a statement that holds no string literal against a pattern.
 */
export function stripComments(text: string): string {
  return text.replace(/--[^\n]*/g, "").replace(/\/\*[\s\S]*?\*\//g, "");
}
