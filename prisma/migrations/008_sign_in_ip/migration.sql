-- Verity 008: the failed sign-in limit per client address (lib/auth/mutations.ts) counts an address's failures in
-- the last 15 minutes across every email; (ip, at) makes that count an index range read.
CREATE INDEX "sign_in_failures_ip_at_idx" ON "sign_in_failures"("ip", "at");
