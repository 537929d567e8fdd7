// SARIF locations: each path segment percent-encoded (`#`, `?`, `:` stay in the name), files under
// the working directory relative to %SRCROOT% (declared in originalUriBaseIds), others file:// URIs.
import { strict as assert } from 'node:assert';
import { pathToFileURL } from 'node:url';
import { artifactLocation, fileUri, formatSarif, INFORMATION_URI } from '../../../relay/lint/sarif';
import type { FileFinding } from '../../../relay/lint/format';

const CWD = '/work/repo';

const finding = (file: string): FileFinding => ({
  file,
  rule: 'context-event',
  severity: 'error',
  message: 'm',
  offset: 0,
  length: 1,
  line: 1,
  column: 1,
  endLine: 1,
  endColumn: 2,
  replacement: 'service',
});

describe('lint SARIF locations', () => {
  it('percent-encodes #, ? and : in each segment of a relative path under the working directory', () => {
    assert.deepEqual(artifactLocation('hash#1.yml', CWD), { uri: 'hash%231.yml', uriBaseId: '%SRCROOT%' });
    assert.deepEqual(artifactLocation('q?1.yml', CWD), { uri: 'q%3F1.yml', uriBaseId: '%SRCROOT%' });
    assert.deepEqual(artifactLocation('a:b.yml', CWD), { uri: 'a%3Ab.yml', uriBaseId: '%SRCROOT%' });
    assert.deepEqual(artifactLocation('.github/work flows/ci%.yml', CWD), { uri: '.github/work%20flows/ci%25.yml', uriBaseId: '%SRCROOT%' });
  });

  it('an absolute path under the working directory is relative too; one outside is a file:// URI', () => {
    assert.deepEqual(artifactLocation('/work/repo/.github/workflows/ci.yml', CWD), { uri: '.github/workflows/ci.yml', uriBaseId: '%SRCROOT%' });
    assert.deepEqual(artifactLocation('/elsewhere/x#1.yml', CWD), { uri: 'file:///elsewhere/x%231.yml' });
    assert.deepEqual(artifactLocation('../sibling/a:b.yml', CWD), { uri: 'file:///work/sibling/a%3Ab.yml' });
    assert.deepEqual(artifactLocation('..x/a.yml', CWD), { uri: '..x/a.yml', uriBaseId: '%SRCROOT%' }, 'a folder named ..x is inside');
  });

  it('file URIs agree with Node for ordinary paths and keep a Windows drive letter', () => {
    for (const p of ['/tmp/a b/c.yml', '/x/y#z?.yml', '/ü/ß.yml'])
      assert.equal(new URL(fileUri(p)).pathname, new URL(pathToFileURL(p).href).pathname.replace(/:/g, '%3A'));
    assert.equal(fileUri('C:\\repo\\a#b.yml'), 'file:///C:/repo/a%23b.yml');
  });

  it('each URI resolves back to its own file name, not a fragment, query or scheme', () => {
    for (const name of ['hash#1.yml', 'q?1.yml', 'a:b.yml']) {
      const { uri } = artifactLocation(name, CWD);
      const url = new URL(uri, pathToFileURL(CWD + '/'));
      assert.equal(url.hash + url.search, '');
      assert.equal(decodeURIComponent(url.pathname), `${CWD}/${name}`);
    }
  });

  it('the log declares %SRCROOT%, the tool information URI, and uses the same location in fixes', () => {
    const log = JSON.parse(formatSarif([finding('hash#1.yml'), finding('/elsewhere/a.yml')], [], '0.1.0', CWD));
    const run = log.runs[0];
    assert.deepEqual(run.originalUriBaseIds, { '%SRCROOT%': { uri: 'file:///work/repo/' } });
    assert.equal(run.tool.driver.informationUri, INFORMATION_URI);
    assert.match(INFORMATION_URI, /^https:\/\//);
    const [a, b] = run.results;
    assert.deepEqual(a.locations[0].physicalLocation.artifactLocation, { uri: 'hash%231.yml', uriBaseId: '%SRCROOT%' });
    assert.deepEqual(a.fixes[0].artifactChanges[0].artifactLocation, a.locations[0].physicalLocation.artifactLocation);
    assert.deepEqual(b.locations[0].physicalLocation.artifactLocation, { uri: 'file:///elsewhere/a.yml' });
  });
});
