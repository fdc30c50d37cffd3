/**
 * A loopback S3 (s3rver) holding a bucket of test objects, for the bucket reader. s3rver
 * accepts the access key `S3RVER` (secret `S3RVER`) and answers InvalidAccessKeyId to others;
 * it speaks S3's REST API with path-style addressing (ListObjectsV2, GetObject, XML errors).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export const S3_KEY = 'S3RVER';

export interface FakeS3 {
  endpoint: string;
  /** Writes (or overwrites, with a new ETag) an object, as another S3 client would. */
  put(key: string, body: string | Uint8Array, type?: string): Promise<void>;
  remove(key: string): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeS3(bucket: string, objects: Record<string, { body: string | Uint8Array; type: string }>): Promise<FakeS3> {
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
