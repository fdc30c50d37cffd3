/**
 * A loopback S3 (s3rver) holding a bucket of test objects, for the bucket reader. s3rver
 * accepts the access key `S3RVER` (secret `S3RVER`) and answers InvalidAccessKeyId to others;
 * it speaks S3's REST API with path-style addressing (ListObjectsV2, GetObject, XML errors).
 */
import crypto from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export const S3_KEY = 'S3RVER';

/**
 * s3rver makes ListObjectsV2 continuation tokens with single DES, which OpenSSL 3 has moved to
 * its legacy provider, so any truncated listing fails with a 500. Three-key DES-EDE with the same
 * key three times is single DES, and is in the default provider: s3rver's "des" is mapped to it,
 * in this test process only, so paging can be tested against s3rver.
 */
function tripled(key: crypto.CipherKey): Buffer {
  const single = Buffer.from(key as Buffer);
  return Buffer.concat([single, single, single]);
}

function shimSingleDes(): void {
  const marked = crypto as unknown as { __desShim?: boolean };
  if (marked.__desShim) return;
  marked.__desShim = true;
  const cipher = crypto.createCipheriv.bind(crypto);
  const decipher = crypto.createDecipheriv.bind(crypto);
  Object.assign(crypto, {
    createCipheriv: (algorithm: string, key: crypto.CipherKey, iv: crypto.BinaryLike | null, options?: unknown) =>
      algorithm === 'des' ? cipher('des-ede3-cbc', tripled(key), iv) : cipher(algorithm, key, iv, options as never),
    createDecipheriv: (algorithm: string, key: crypto.CipherKey, iv: crypto.BinaryLike | null, options?: unknown) =>
      algorithm === 'des' ? decipher('des-ede3-cbc', tripled(key), iv) : decipher(algorithm, key, iv, options as never),
  });
}

export interface FakeS3 {
  endpoint: string;
  /** Writes (or overwrites, with a new ETag) an object, as another S3 client would. */
  put(key: string, body: string | Uint8Array, type?: string): Promise<void>;
  remove(key: string): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeS3(bucket: string, objects: Record<string, { body: string | Uint8Array; type: string }>): Promise<FakeS3> {
  shimSingleDes();
  const directory = mkdtempSync(join(tmpdir(), 'svc-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: S3_KEY, secretAccessKey: S3_KEY } });
  for (const [key, object] of Object.entries(objects)) {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: object.body, ContentType: object.type }));
  }
  return {
    endpoint,
    async put(key, body, type = 'text/plain') {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: type }));
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async close() {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
