// Pins the one redaction of the CLI and the relay's printers (relay/shared/redact.ts, issue 36.10 and
// 36.12): every credential form in a table, each both redacted and with its surroundings kept.
import { strict as assert } from 'node:assert';
import { redact, redactUrlPath, secretsPattern } from '../../../../relay/shared/redact';
import { targetLabel } from '../../../../relay/server/metrics';

const R = '[redacted]';

describe('redact(): every form a password, token or secret takes in a printed line', () => {
  // Each row: the form, the text, what must be printed.
  const rows: [string, string, string][] = [
    ['URL user:password@', "--store must be … got 'nats://relay:hunter2@nats.example:4222'", `--store must be … got 'nats://${R}@nats.example:4222'`],
    ['a password holding @', 'https://ops:p@ss@w0rd@relay.example/x', `https://${R}@relay.example/x`],
    ['a user alone', 'wss://alice@relay.example:8788', `wss://${R}@relay.example:8788`],
    ['Bearer', 'authorization failed for Bearer abc.def-ghi', `authorization failed for Bearer ${R}`],
    ['Basic', 'sent Basic dXNlcjpwYXNzd29yZA== to the app', `sent Basic ${R} to the app`],
    ['Token scheme', 'header Token 9f8e7d6c5b4a', `header Token ${R}`],
    ['lowercase token before a value', 'using token ghp_0123456789abcdefXYZ now', `using token ${R} now`],
    ['Authorization header, any scheme', 'Authorization: Digest dXNlcjpwYXNz; next', `Authorization: Digest ${R}; next`],
    ['Authorization header, no scheme', 'authorization=abc123def; next', `authorization=${R}; next`],
    ['?token= in a URL', 'GET /ws?since=3&token=s3cr3t-value&channel=a', `GET /ws?since=3&token=${R}&channel=a`],
    [
      'other credential query names',
      'https://app.example/hook?api_key=k1&sig=abc&access_token=t&x=1',
      `https://app.example/hook?api_key=${R}&sig=${R}&access_token=${R}&x=1`,
    ],
    [
      'a Slack webhook path',
      'forward to https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdEFGH1234ijklMNOP5678 failed',
      `forward to https://hooks.slack.com/services/T0123ABCD/B0123ABCD/${R} failed`,
    ],
    [
      'a Discord webhook path',
      'https://discord.com/api/webhooks/123456789012345678/Ab1_cD2-eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2yZ3aB4cD5eF6gH7iJ8kL9mN0oP1qR2sT3',
      `https://discord.com/api/webhooks/123456789012345678/${R}`,
    ],
    ['a newline cannot forge a line', "channel 'x'\nrelay: stopped", "channel 'x'\\nrelay: stopped"],
    ['a carriage return and an escape', 'a\r\u001b[2Jb', 'a\\r\\x1b[2Jb'],
    ['a C1 control (CSI on its own)', 'a\u009b2Jb', 'a\\x9b2Jb'],
  ];
  for (const [form, text, printed] of rows) {
    it(form, () => assert.equal(redact(text), printed));
  }

  it("leaves ordinary words, short paths and the relay's own sentences alone", () => {
    for (const text of [
      'missing or wrong relay token (the admin token)',
      'relay token (shown once; stored in /home/u/.service-hooks/relay/token)',
      'forward to http://127.0.0.1:3000/webhook answered 503',
      'basic checks passed; Token refused',
      'https://app.example/hooks/github-events?since=4',
    ])
      assert.equal(redact(text), text);
  });

  it('known values (the admin token, channel tokens, secrets): longest first, short ones never', () => {
    const pattern = secretsPattern(['abc', 'tok-0123', 'tok-0123-longer', undefined]);
    assert.equal(redact('tok-0123-longer and tok-0123 and abc', pattern), `${R} and ${R} and abc`);
  });

  it('metric target labels: no credentials, no query, no path secret', () => {
    assert.equal(
      targetLabel('https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdEFGH1234ijklMNOP5678'),
      `https://hooks.slack.com/services/T0123ABCD/B0123ABCD/${R}`,
    );
    assert.equal(targetLabel('https://user:pa55@app.example:8443/hook?token=abc'), 'https://app.example:8443/hook');
    assert.equal(redactUrlPath('http://127.0.0.1:3000/webhook'), 'http://127.0.0.1:3000/webhook');
  });
});
