import { describe, expect, it } from "vitest";
import { copyField, copyLine } from "@/lib/db/copy.ts";

describe("COPY text format", () => {
  it("escapes backslash, tab, newline and carriage return, and writes null as \\N", () => {
    expect(copyField('{"a":"x\\ny"}')).toBe('{"a":"x\\\\ny"}');
    expect(copyField("a\tb\nc\rd")).toBe("a\\tb\\nc\\rd");
    expect(copyField(null)).toBe("\\N");
    expect(copyField(undefined)).toBe("\\N");
    expect(copyField("\\N")).toBe("\\\\N");
    expect(copyField(true)).toBe("t");
    expect(copyField(false)).toBe("f");
    expect(copyField(0.1)).toBe("0.1");
    expect(copyField(12n)).toBe("12");
    expect(copyField("")).toBe("");
  });

  it("joins fields with tabs and ends the row with a newline", () => {
    expect(copyLine(["a", null, 3])).toBe("a\t\\N\t3\n");
  });
});
