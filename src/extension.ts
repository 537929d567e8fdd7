// VS Code entry point: everything lives in src/extension/activate.ts.
export { activate, deactivate } from './extension/activate';
