// Input checks used by the palette flows (QuickPick / InputBox validateInput).

/** An absolute http(s) URL; returns an error message or undefined when valid. */
export function validateWebhookUrl(text: string): string | undefined {
  const t = text.trim();
  if (!t) return 'Enter the payload URL';
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return 'Enter an absolute URL, for example https://example.com/webhook';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'The URL must start with http:// or https://';
  if (!u.hostname) return 'The URL needs a host';
  return undefined;
}

/** CI secret names: letters, digits and underscores, not starting with a digit or the reserved prefix. */
export function validateSecretName(name: string): string | undefined {
  if (!name) return 'Enter a name';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return 'Use letters, digits and underscores; do not start with a digit';
  if (/^SERVICE_/i.test(name)) return 'Names starting with SERVICE_ are reserved';
  if (name.length > 255) return 'At most 255 characters';
  return undefined;
}

export function validateRepoText(text: string): string | undefined {
  return /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(text.trim()) ? undefined : 'Use owner/repo';
}
