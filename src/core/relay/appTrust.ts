// The trust rules for a local https app, shared by `service-hooks forward` (--ca, --skip-verify)
// and the editor's forward set-ups (serviceHooks.relay.forwardCa, Skip verification): skipping
// the certificate check is for an app on this machine only, and a CA file must hold a PEM
// certificate; which certificate errors a CA cures. Pure: the caller reads the file.

/** Is `url`'s host this machine (127.0.0.0/8, ::1, localhost)? */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The first target that is not on this machine (skipping verification is refused for it), or undefined. */
export function farTarget(targets: readonly string[]): string | undefined {
  return targets.find((t) => !isLoopback(t));
}

/** Why `text` (a CA file's content) is no certificate, or undefined. */
export function caTextProblem(text: string): string | undefined {
  return text.includes('-----BEGIN CERTIFICATE-----') ? undefined : 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)';
}

/** TLS verification failures that mean "the CA is not known here" (Node's error codes): a CA cures them. */
const UNTRUSTED_CERT = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

export function isUntrustedCert(code: string | undefined): boolean {
  return code !== undefined && UNTRUSTED_CERT.has(code);
}
