// Why "Connect to Relay…" failed, in words a person can act on.

const CERT_CODES =
  /^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_HAS_EXPIRED|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/**
 * Why "Connect to Relay…" failed, in words a person can act on (status from the REST answer, code
 * from the socket error). `tls`: whether the address was https:// (an http:// one to a TLS port
 * gets its connection closed unanswered: say "use https://", as the CLI does).
 */
export function describeConnectError(
  label: string,
  err: { status?: number; code?: string; cause?: { code?: string }; message?: string },
  tls?: boolean,
): string {
  const code = err.code ?? err.cause?.code;
  if (tls === false && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || /other side closed/i.test(err.message ?? ''))) {
    return `${label} closed the connection without answering: it speaks TLS on this port, so use https://${label}`;
  }
  if (err.status === 401) return `${label} rejected the token (401). Check it, or ask the relay's admin for a channel token.`;
  if (err.status === 403) return `${label} refused this token (403): it may be a channel token for another channel.`;
  if (err.status === 404) return `${label} answered 404: is this the relay's address (no path after the host)?`;
  if (code && CERT_CODES.test(code)) {
    return `${label}'s TLS certificate is not trusted (${code}). If your team uses its own CA, start the editor with NODE_EXTRA_CA_CERTS pointing at it.`;
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ETIMEDOUT' || code === 'ECONNRESET')
    return `Cannot reach ${label} (${code}).`;
  if (code === 'EPROTO' || /wrong version number|packet length too long/i.test(err.message ?? ''))
    return `${label} does not speak TLS on this port: use http:// only for a relay on this machine.`;
  return `Cannot connect to ${label}: ${err.message ?? 'unknown error'}${code ? ` (${code})` : ''}`;
}

/**
 * Why a POST the editor made to `label` (Send Sample Event…, Add Webhook's secret check) got no
 * answer, from the socket's error code: an untrusted certificate says how to trust its CA.
 */
export function describePostError(label: string, err: { code?: string; error: string }): string {
  if (err.code && CERT_CODES.test(err.code))
    return `${label}'s TLS certificate is not trusted (${err.code}). If your team uses its own CA, start the editor with NODE_EXTRA_CA_CERTS pointing at its PEM file.`;
  return `Cannot reach ${label}: ${err.error}${err.code && !err.error.includes(err.code) ? ` (${err.code})` : ''}`;
}
