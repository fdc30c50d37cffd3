import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../errors.js';
import { parseS3Url, s3Failure } from './bucket.js';

describe('parseS3Url', () => {
  it('reads one object, a prefix (trailing slash) or a whole bucket', () => {
    expect(parseS3Url('s3://garden-docs/notes/compost.md')).toEqual({ bucket: 'garden-docs', key: 'notes/compost.md' });
    expect(parseS3Url('s3://garden-docs/notes/')).toEqual({ bucket: 'garden-docs', prefix: 'notes/' });
    expect(parseS3Url('s3://garden-docs')).toEqual({ bucket: 'garden-docs', prefix: '' });
    expect(parseS3Url('S3://garden.docs/')).toEqual({ bucket: 'garden.docs', prefix: '' });
    expect(parseS3Url('s3://garden-docs/a key with spaces.txt')).toEqual({ bucket: 'garden-docs', key: 'a key with spaces.txt' });
  });

  it('refuses other schemes and bucket names S3 would refuse (which could also bend a host name)', () => {
    expect(() => parseS3Url('https://garden-docs.s3.amazonaws.com/x')).toThrow('is not an s3:// location');
    for (const bucket of ['ab', 'Garden', 'garden_docs', '-garden', 'garden..docs', '192.168.0.1', 'evil.example:8080', 'a@b', `${'x'.repeat(64)}`]) {
      expect(() => parseS3Url(`s3://${bucket}/k`), bucket).toThrow('is not a valid bucket name');
    }
    expect(() => parseS3Url('s3://garden-docs/bad\u0000key')).toThrow('control characters');
  });
});

/** An error shaped as the SDK throws them: its name is S3's error code. */
function sdkError(name: string, status: number, message = name): Error {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });
}

describe('s3Failure', () => {
  const secrets = ['AKIAEXAMPLEKEY', 'wJalrXUtnFEMI/K7MDENG'];

  it('names the object and what S3 said, never a credential', () => {
    expect(s3Failure(sdkError('NoSuchKey', 404), 's3://b/k', secrets).message).toBe('bucket reader: s3://b/k does not exist (NoSuchKey)');
    expect(s3Failure(sdkError('NoSuchBucket', 404), 's3://b/k', secrets).code).toBe('NOT_FOUND');
    const denied = s3Failure(sdkError('InvalidAccessKeyId', 403, 'The AWS Access Key Id AKIAEXAMPLEKEY you provided does not exist'), 's3://b/k', secrets);
    expect(denied.status).toBe(400);
    expect(denied.message).toBe('bucket reader: S3 refused access to s3://b/k (InvalidAccessKeyId); check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
    const odd = s3Failure(sdkError('InvalidObjectState', 400, 'Key AKIAEXAMPLEKEY archived'), 's3://b/k', secrets);
    expect(odd.message).toBe('bucket reader: S3 answered InvalidObjectState (HTTP 400) for s3://b/k: Key [redacted] archived');
  });

  it('makes throttling and server errors retryable, and keeps typed errors', () => {
    expect(s3Failure(sdkError('SlowDown', 503), 's3://b/k', secrets).code).toBe('SERVICE_UNAVAILABLE');
    expect(s3Failure(sdkError('InternalError', 500), 's3://b/k', secrets).code).toBe('SERVICE_UNAVAILABLE');
    const typed = s3Failure(new RuntimeError('BAD_REQUEST', 'Cannot fetch http://minio.lan/b/k (ECONNREFUSED)'), 's3://b/k', secrets);
    expect(typed.message).toBe('Cannot fetch http://minio.lan/b/k (ECONNREFUSED)');
  });
});
