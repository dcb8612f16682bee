// The Content-Security-Policy of every page. Scripts run only with this response's nonce ('strict-dynamic' lets
// Next's own chunks load the chunks they import); Next reads the nonce from the request's CSP header and puts it on
// every script tag it renders, which works because every page is rendered per request (the root layout reads
// cookies). Styles allow 'unsafe-inline' because React `style={…}` attributes (charts position their tooltips and
// bars with them) cannot carry a nonce; inline styles cannot run code.

export function contentSecurityPolicy(nonce: string, opts: { dev: boolean; https: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    `connect-src 'self'${opts.dev ? " ws:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(opts.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}
