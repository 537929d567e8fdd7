// TLS verification failures that mean "the CA is not known here" (Node's error codes, kept in
// src/core/relay/appTrust.ts with the forward trust rules): the CLI says NODE_EXTRA_CA_CERTS and
// stops, instead of retrying what cannot succeed.
export { isUntrustedCert } from '../../src/core/relay/appTrust';

/** `whose`: whose certificate it is (`send` posts to any receiver, not only a relay). */
export function untrustedCertMessage(where: string, code: string, whose = "the relay's"): string {
  return `${whose} certificate at ${where} is not trusted (${code}): set NODE_EXTRA_CA_CERTS to the PEM file of the CA that signed it`;
}
