// TokenStore's cache against a read that a write overtakes (src/extension/storage/tokenStore.ts): a get()
// whose SecretStorage read was on its way when set() stored a token cached the miss over it, so the
// extension looked signed out until the next change (seen by the walkthrough's sign-in step, issue
// 39). Driven step by step on a SecretStorage whose reads answer when the test says.
import { strict as assert } from 'node:assert';
import type * as vscode from 'vscode';
import { TokenStore, tokenKey } from '../../../src/extension/storage/tokenStore';

const BASE = 'http://127.0.0.1:8787';

/** SecretStorage with reads held until release(); writes land at once. */
class SlowSecrets {
  readonly data = new Map<string, string>();
  private readonly held: (() => void)[] = [];
  private readonly listeners: ((e: { key: string }) => void)[] = [];
  get(key: string): Promise<string | undefined> {
    const value = this.data.get(key); // what the storage holds when the read is made
    return new Promise((resolve) => this.held.push(() => resolve(value)));
  }
  async store(key: string, value: string): Promise<void> {
    this.data.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.data.delete(key);
  }
  onDidChange(listener: (e: { key: string }) => void): vscode.Disposable {
    this.listeners.push(listener);
    return { dispose: () => undefined };
  }
  release(): void {
    for (const r of this.held.splice(0)) r();
  }
  get pending(): number {
    return this.held.length;
  }
}

describe('TokenStore: a read overtaken by a write', () => {
  it('a get() on its way while set() stores a token does not cache the miss over it', async () => {
    const secrets = new SlowSecrets();
    const store = new TokenStore(secrets as unknown as vscode.SecretStorage);
    const reading = store.get(BASE);
    await store.set(BASE, 'tok-new');
    secrets.release();
    // The overtaken read says what it read, or the newer value; either way the cache keeps the token.
    await reading;
    assert.equal(await store.get(BASE), 'tok-new');
    assert.equal(secrets.pending, 0, 'answered from the cache, no second read');
  });

  it('a get() on its way while clear() removes the token does not bring it back', async () => {
    const secrets = new SlowSecrets();
    const store = new TokenStore(secrets as unknown as vscode.SecretStorage);
    await store.set(BASE, 'tok-old');
    const fresh = new TokenStore(secrets as unknown as vscode.SecretStorage);
    const reading = fresh.get(BASE);
    await fresh.clear(BASE);
    secrets.release();
    await reading;
    assert.equal(await fresh.get(BASE), undefined);
  });

  it('without a write meanwhile, a read is cached', async () => {
    const secrets = new SlowSecrets();
    secrets.data.set(tokenKey(BASE), 'tok');
    const store = new TokenStore(secrets as unknown as vscode.SecretStorage);
    const reading = store.get(BASE);
    secrets.release();
    assert.equal(await reading, 'tok');
    assert.equal(await store.get(BASE), 'tok');
    assert.equal(secrets.pending, 0, 'the second get is answered from the cache');
  });
});
