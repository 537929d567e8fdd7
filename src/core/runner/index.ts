// Self-hosted runner set-up (spec §5).
export * from './commands';
