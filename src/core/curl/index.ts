// "Copy as cURL": a shell command that re-sends a delivery, secrets redacted, bytes kept exact.
export * from './curl';
