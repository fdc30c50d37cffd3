/**
 * A loopback S3 (s3rver) holding a bucket of test objects, for the bucket reader. s3rver
 * accepts the access key `S3RVER` (secret `S3RVER`) and answers InvalidAccessKeyId to others;
 * it speaks S3's REST API with path-style addressing (ListObjectsV2, GetObject, XML errors).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export const S3_KEY = 'S3RVER';

export interface FakeS3 {
  endpoint: string;
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
  client.destroy();
  return {
    endpoint,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
