// TLS verification failures that mean "the CA is not known here" (Node's error codes): the CLI
// says NODE_EXTRA_CA_CERTS and stops, instead of retrying what cannot succeed.
const UNTRUSTED_CERT = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

export function isUntrustedCert(code: string | undefined): boolean {
  return code !== undefined && UNTRUSTED_CERT.has(code);
}

/** `whose`: whose certificate it is (`send` posts to any receiver, not only a relay). */
export function untrustedCertMessage(where: string, code: string, whose = "the relay's"): string {
  return `${whose} certificate at ${where} is not trusted (${code}): set NODE_EXTRA_CA_CERTS to the PEM file of the CA that signed it`;
}
