// A real OpenID provider for end-to-end tests: `oidc-provider` (an OpenID Certified implementation), as it comes —
// its development login and consent pages (any login name signs in; it becomes the account's email), its defaults
// for claims (scope-requested claims such as email go to the UserInfo response, not the ID token), PKCE and
// client_secret_basic — on a loopback port. Not for anything but tests: its signing keys are its development keys.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export type CertifiedOidcProvider = { issuer: string; clientId: string; clientSecret: string; close(): Promise<void> };

export async function startCertifiedOidcProvider(opts: {
  redirectUris: string[];
  clientId?: string;
  clientSecret?: string;
}): Promise<CertifiedOidcProvider> {
  const clientId = opts.clientId ?? "verity-console";
  const clientSecret = opts.clientSecret ?? "a-client-secret-for-tests";
  // The issuer names its port, so the port is taken before the provider is made.
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    findAccount: async (_ctx, id) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: id, email_verified: true }),
    }),
    cookies: { keys: ["a-cookie-key-for-tests-only"] },
  });
  server.on("request", provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    // Idempotent: a spec may stop the provider to see the console cope, and stop it again when it ends.
    close: () =>
      new Promise((resolve, reject) => {
        if (!server.listening) return resolve();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
