// Issue import (spec §2.4): validate a file's records, chunk them, report the outcome.
export * from './importFile';
export * from './validate';
export * from './importRun';
