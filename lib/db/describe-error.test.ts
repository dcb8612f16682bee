import { describe, expect, it } from "vitest";
import { classifyDatabaseError, describeDatabaseError } from "@/lib/db/describe-error.ts";

const pgError = (code: string, message = "m") => Object.assign(new Error(message), { code });

describe("classifyDatabaseError", () => {
  it("calls the SQLSTATE classes about the values written data", () => {
    // invalid text representation, numeric out of range, check, unique, not null, index row size, stack depth
    for (const code of ["22P02", "22003", "23514", "23505", "23502", "54000", "54001"])
      expect(classifyDatabaseError(pgError(code)), code).toBe("data");
  });

  it("calls the database unavailable only for the connection, the server's state and its resources", () => {
    for (const code of ["08006", "08003", "57P01", "57P02", "57P03", "53100", "53200", "53300", "28P01", "3D000"])
      expect(classifyDatabaseError(pgError(code)), code).toBe("unavailable");
    for (const code of ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND"])
      expect(classifyDatabaseError(pgError(code)), code).toBe("unavailable");
    expect(classifyDatabaseError(new Error("Connection terminated unexpectedly"))).toBe("unavailable");
    expect(classifyDatabaseError(new Error("Client has encountered a connection error and is not queryable"))).toBe(
      "unavailable",
    );
  });

  it("calls everything else other: a trigger's exception, a bad statement, a cancelled query, a fault", () => {
    for (const code of ["P0001", "42P01", "42601", "57014", "40001", "XX000", "25P02"])
      expect(classifyDatabaseError(pgError(code)), code).toBe("other");
    expect(classifyDatabaseError(new TypeError("x is undefined"))).toBe("other");
    expect(classifyDatabaseError(new RangeError("Maximum call stack size exceeded"))).toBe("other");
    expect(classifyDatabaseError(undefined)).toBe("other");
  });
});

describe("describeDatabaseError", () => {
  it("gives the first line of the message and the SQLSTATE", () => {
    expect(describeDatabaseError(pgError("54000", "index row size 6008 exceeds maximum 2704\nDETAIL"))).toBe(
      "index row size 6008 exceeds maximum 2704 [SQLSTATE 54000]",
    );
    expect(describeDatabaseError(pgError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:1"))).toBe(
      "connect ECONNREFUSED 127.0.0.1:1",
    );
  });
});
