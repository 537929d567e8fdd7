// Repository detection from git remotes (the vscode.git API's or `.git/config`'s).
export * from './remotes';
