// View models for the extension's trees and palette flows. Pure: no vscode, no I/O.
export * from './types';
export * from './labels';
export * from './paging';
export * from './nodes';
export * from './relayModel';
export * from './gitConfig';
export * from './curl';
export * from './issues';
export * from './validate';
export * from './relayAddress';
