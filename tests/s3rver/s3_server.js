// s3_server.js DIR BUCKET KEY:SECRET... - S3rver on 127.0.0.1 (an ephemeral
// port, printed on stdout once it listens), storing in DIR, with BUCKET and
// the given access keys, checking every signed request's SigV4 signature.
// A line "revoke KEY" on stdin revokes that key (a credential that expired);
// stdin closed stops the server. For tests/test_sentinel_streaming.py.
'use strict';
const readline = require('node:readline');
const S3rver = require('@20minutes/s3rver');
const AWSAccount = require('@20minutes/s3rver/lib/models/account');

const [directory, bucket, ...pairs] = process.argv.slice(2);
// only the test's keys: not S3rver's built-in one
AWSAccount.DUMMY_ACCOUNT.revokeAccessKey('S3RVER');
for (const pair of pairs) {
  const colon = pair.indexOf(':');
  AWSAccount.DUMMY_ACCOUNT.createKeyPair(pair.slice(0, colon), pair.slice(colon + 1));
}
const server = new S3rver({
  address: '127.0.0.1', port: 0, silent: true, directory, vhostBuckets: false,
  allowMismatchedSignatures: false, configureBuckets: [{ name: bucket }],
});
server.run().then((address) => {
  process.stdout.write(`${address.port}\n`);
  const lines = readline.createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const [verb, key] = line.trim().split(/\s+/);
    if (verb === 'revoke' && key) AWSAccount.DUMMY_ACCOUNT.revokeAccessKey(key);
    process.stdout.write(`ok ${line.trim()}\n`);
  });
  lines.on('close', () => server.close().then(() => process.exit(0)));
}, (error) => {
  process.stderr.write(`s3_server: ${error.message}\n`);
  process.exit(1);
});
