// Checks of what the user types in palette flows (InputBox / QuickPick validateInput).
export * from './validate';
