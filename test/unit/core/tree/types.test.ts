// parseRepoRef (src/core/tree): "owner/repo" (a .git suffix dropped) and nothing else.
import { strict as assert } from 'node:assert';
import { parseRepoRef } from '../../../../src/core/tree';

describe('repository references', () => {
  it('owner/repo', () => {
    assert.deepEqual(parseRepoRef('acme/widgets.git'), { owner: 'acme', repo: 'widgets' });
    assert.equal(parseRepoRef('acme'), undefined);
    assert.equal(parseRepoRef('a/b/c'), undefined);
  });
});
