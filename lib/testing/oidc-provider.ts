// A local OpenID provider for tests (node:http on 127.0.0.1): discovery, JWKS, an authorization endpoint that signs
// in whoever the test names and redirects at once, a token endpoint that checks client_secret_basic, the redirect
// URI and PKCE, spends each code once and issues an RS256-signed ID token, and a UserInfo endpoint for its access
// tokens. The email travels in the ID token, only in UserInfo, or nowhere (`signInAs`). `tamper` makes the next ID
// token wrong in one way, to show the console refusing it.
import { createHash, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type IdTokenTamper = "none" | "nonce" | "signature" | "audience" | "issuer" | "expired" | "unsigned";

/** Where the provider puts the user's email: in the ID token, only in the UserInfo response, or nowhere. */
export type EmailIn = "id_token" | "userinfo" | "nowhere";

type Grant = {
  clientId: string;
  redirectUri: string;
  nonce: string;
  challenge: string;
  email: string;
  emailVerified: boolean;
  emailIn: EmailIn;
};

export type TestOidcProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who the authorization endpoint signs in next. */
  signInAs(email: string, opts?: { emailVerified?: boolean; emailIn?: EmailIn }): void;
  /** How the next ID token is spoiled ("none" after each token). */
  tamper(how: IdTokenTamper): void;
  /** Requests the token endpoint refused, with why (the test asserts on them). */
  refusals: string[];
  close(): Promise<void>;
};

function jwt(header: object, claims: object, key: KeyObject | null): string {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const input = `${enc(header)}.${enc(claims)}`;
  return `${input}.${key ? sign("sha256", Buffer.from(input), key).toString("base64url") : ""}`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startTestOidcProvider(
  clientId = "verity-console",
  clientSecret = "s3cret:with/odd chars",
): Promise<TestOidcProvider> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  const kid = "test-key-1";
  const codes = new Map<string, Grant>();
  const refusals: string[] = [];
  let user = { email: "", emailVerified: true, emailIn: "id_token" as EmailIn };
  const accessTokens = new Map<string, Grant>();
  let tamper: IdTokenTamper = "none";
  let codeSeq = 0;

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    const json = (status: number, body: object) => {
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/.well-known/openid-configuration") {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic"],
      });
    }
    if (url.pathname === "/jwks")
      return json(200, { keys: [{ ...publicKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" }] });
    if (url.pathname === "/authorize") {
      const q = url.searchParams;
      const redirectUri = q.get("redirect_uri") ?? "";
      if (q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge"))
        return json(400, { error: "invalid_request" });
      const code = `code-${++codeSeq}`;
      codes.set(code, {
        clientId: q.get("client_id") ?? "",
        redirectUri,
        nonce: q.get("nonce") ?? "",
        challenge: q.get("code_challenge") ?? "",
        ...user,
      });
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state") ?? "");
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const body = new URLSearchParams(await readBody(req));
      const [id, secret] = Buffer.from((req.headers.authorization ?? "").replace(/^Basic /, ""), "base64")
        .toString("utf8")
        .split(":")
        // client_secret_basic form-encodes both parts (RFC 6749 2.3.1): a space travels as "+"
        .map((part) => decodeURIComponent(part.replaceAll("+", " ")));
      const refuse = (why: string) => {
        refusals.push(why);
        return json(400, { error: "invalid_grant", error_description: why });
      };
      if (id !== clientId || secret !== clientSecret) {
        refusals.push("client authentication");
        return json(401, { error: "invalid_client" });
      }
      const grant = codes.get(body.get("code") ?? "");
      codes.delete(body.get("code") ?? "");
      if (body.get("grant_type") !== "authorization_code" || !grant) return refuse("unknown or spent code");
      if (grant.redirectUri !== body.get("redirect_uri")) return refuse("redirect_uri differs");
      if (
        createHash("sha256")
          .update(body.get("code_verifier") ?? "")
          .digest("base64url") !== grant.challenge
      )
        return refuse("PKCE verifier");
      const now = Math.floor(Date.now() / 1000);
      const how = tamper;
      tamper = "none";
      const claims = {
        iss: how === "issuer" ? "http://evil.example" : issuer,
        sub: `sub-${grant.email}`,
        aud: how === "audience" ? "another-client" : grant.clientId,
        iat: how === "expired" ? now - 7200 : now,
        exp: how === "expired" ? now - 3600 : now + 300,
        nonce: how === "nonce" ? "a-nonce-from-another-flow" : grant.nonce,
        ...(grant.emailIn === "id_token" ? { email: grant.email, email_verified: grant.emailVerified } : {}),
      };
      const accessToken = `at-${++codeSeq}`;
      accessTokens.set(accessToken, grant);
      const idToken =
        how === "unsigned"
          ? jwt({ alg: "none", typ: "JWT" }, claims, null)
          : jwt({ alg: "RS256", typ: "JWT", kid }, claims, how === "signature" ? stranger : privateKey);
      return json(200, { access_token: accessToken, token_type: "Bearer", expires_in: 300, id_token: idToken });
    }
    if (url.pathname === "/userinfo") {
      const grant = accessTokens.get((req.headers.authorization ?? "").replace(/^Bearer /, ""));
      if (!grant) return json(401, { error: "invalid_token" });
      return json(200, {
        sub: `sub-${grant.email}`,
        ...(grant.emailIn === "nowhere" ? {} : { email: grant.email, email_verified: grant.emailVerified }),
      });
    }
    json(404, { error: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs(email, opts) {
      user = { email, emailVerified: opts?.emailVerified ?? true, emailIn: opts?.emailIn ?? "id_token" };
    },
    tamper(how) {
      tamper = how;
    },
    refusals,
    close: () => new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}
