import { describe, expect, it } from "vitest";
import { isCrossOriginPagePost } from "@/lib/auth/same-origin.ts";

const h = (o: Record<string, string>) => new Headers(o);

describe("a cross-origin POST to a page (a server action from another site)", () => {
  it("is an Origin whose host differs from the request's", () => {
    expect(
      isCrossOriginPagePost("POST", "/sign-in", h({ host: "127.0.0.1:3400", origin: "http://evil.example" })),
    ).toBe(true);
    expect(isCrossOriginPagePost("POST", "/sign-in", h({ host: "127.0.0.1:3400", origin: "null" }))).toBe(true);
    expect(isCrossOriginPagePost("POST", "/sign-in", h({ host: "127.0.0.1:3400", origin: "not a url" }))).toBe(true);
    // another port is another origin
    expect(isCrossOriginPagePost("POST", "/", h({ host: "127.0.0.1:3400", origin: "http://127.0.0.1:3401" }))).toBe(
      true,
    );
  });

  it("is not the same host, a forwarded host that matches, a request without Origin, a GET, or the API", () => {
    expect(isCrossOriginPagePost("POST", "/", h({ host: "127.0.0.1:3400", origin: "http://127.0.0.1:3400" }))).toBe(
      false,
    );
    expect(
      isCrossOriginPagePost(
        "POST",
        "/",
        h({ host: "10.0.0.5:3000", "x-forwarded-host": "verity.example.org", origin: "https://verity.example.org" }),
      ),
    ).toBe(false);
    expect(isCrossOriginPagePost("POST", "/", h({ host: "127.0.0.1:3400" }))).toBe(false);
    expect(isCrossOriginPagePost("GET", "/", h({ host: "a", origin: "http://b" }))).toBe(false);
    expect(isCrossOriginPagePost("POST", "/api/export", h({ host: "a", origin: "http://b" }))).toBe(false);
  });
});
