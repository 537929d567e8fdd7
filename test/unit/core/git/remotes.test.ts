// Finding the service's repositories in .git/config (src/core/git): remote sections only, hosts
// matching the base URL (origin first, .git stripped), https, ssh:// and scp-like URLs, IPv6 hosts,
// and empty or CRLF files.
import { strict as assert } from 'node:assert';
import { detectReposFromGitConfig, parseGitConfigRemotes, repoFromRemoteUrl, splitRemoteUrl } from '../../../../src/core/git';

const CONFIG = `[core]
\trepositoryformatversion = 0
\tbare = false
[remote "upstream"]
\turl = https://github.example.org/other/thing.git
\tfetch = +refs/heads/*:refs/remotes/upstream/*
[remote "origin"]
\turl = git@127.0.0.1:acme/widgets.git
\tfetch = +refs/heads/*:refs/remotes/origin/*
[branch "main"]
\tremote = origin
\turl = https://127.0.0.1/not/a-remote.git
[remote "mirror"]
    url = "https://127.0.0.1:8787/acme/gadgets" ; a comment
`;

describe('.git/config repository detection', () => {
  it('parses remote sections only', () => {
    assert.deepEqual(parseGitConfigRemotes(CONFIG), [
      { name: 'upstream', url: 'https://github.example.org/other/thing.git' },
      { name: 'origin', url: 'git@127.0.0.1:acme/widgets.git' },
      { name: 'mirror', url: 'https://127.0.0.1:8787/acme/gadgets' },
    ]);
  });

  it('keeps remotes whose host matches the base URL host, origin first, .git stripped', () => {
    assert.deepEqual(detectReposFromGitConfig(CONFIG, 'http://127.0.0.1:8787'), [
      { owner: 'acme', repo: 'widgets' },
      { owner: 'acme', repo: 'gadgets' },
    ]);
    assert.deepEqual(detectReposFromGitConfig(CONFIG, 'https://github.example.org'), [{ owner: 'other', repo: 'thing' }]);
    assert.deepEqual(detectReposFromGitConfig(CONFIG, 'https://elsewhere.example'), []);
    assert.deepEqual(detectReposFromGitConfig(CONFIG, 'not a url'), []);
  });

  it('handles https, ssh:// and scp-like forms', () => {
    const host = 'code.example.com';
    for (const url of [
      'https://code.example.com/acme/widgets.git',
      'https://user@code.example.com:8443/acme/widgets',
      'ssh://git@code.example.com:2222/acme/widgets.git',
      'git@code.example.com:acme/widgets.git',
      'code.example.com:acme/widgets',
      'https://CODE.example.com/acme/widgets/',
      'https://code.example.com/group/sub/acme/widgets.git',
    ]) {
      assert.deepEqual(repoFromRemoteUrl(url, host), { owner: 'acme', repo: 'widgets' }, url);
    }
    assert.equal(repoFromRemoteUrl('https://code.example.com/only-one', host), undefined);
    assert.equal(repoFromRemoteUrl('/local/path/acme/widgets', host), undefined);
    assert.equal(repoFromRemoteUrl('https://other.example.com/acme/widgets', host), undefined);
  });

  it('splits IPv6 hosts', () => {
    assert.deepEqual(splitRemoteUrl('ssh://git@[::1]:22/a/b.git'), { host: '::1', path: '/a/b.git' });
  });

  it('empty and CRLF files', () => {
    assert.deepEqual(parseGitConfigRemotes(''), []);
    assert.deepEqual(parseGitConfigRemotes('[remote "origin"]\r\n\turl = git@h:a/b.git\r\n'), [{ name: 'origin', url: 'git@h:a/b.git' }]);
  });
});
