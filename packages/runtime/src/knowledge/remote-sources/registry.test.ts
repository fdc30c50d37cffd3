import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../errors.js';
import { AzureBlobSource } from './azure-blob.js';
import { GcsSource } from './gcs.js';
import { GitHubSource } from './github.js';
import { remoteSourceFromSettings, remoteSourcesFromEnvironment, remoteSourcesFromSettings } from './registry.js';
import { S3Source } from './s3.js';
import { SharePointSource } from './sharepoint.js';

const PEM = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const dir = mkdtempSync(join(tmpdir(), 'svc-source-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ENV = {
  S3_KEY: 'AKIAEXAMPLE',
  S3_SECRET: 's3-secret-value',
  GCS_KEY: JSON.stringify({ client_email: 'a@b.iam.gserviceaccount.com', private_key: PEM }),
  SAS: 'sv=2023-11-03&sig=abcdef',
  SP_SECRET: 'sp-secret-value',
  GH_TOKEN: 'ghp_token_value',
  GH_KEY: PEM,
};

const ENTRIES = [
  { id: 's3docs', type: 's3', bucket_name: 'garden-docs', region: 'eu-west-1', prefix: 'docs/', access_key_id_env: 'S3_KEY', secret_access_key_env: 'S3_SECRET' },
  { id: 'gcsdocs', type: 'gcs', bucket_name: 'garden-docs', project: 'garden', service_account_key_env: 'GCS_KEY', name: 'GCS docs', metadata: { team: 'a' } },
  { id: 'azdocs', type: 'azureblob', storage_account: 'gardenstore', container: 'docs', sas_token_env: 'SAS' },
  { id: 'spdocs', type: 'sharepoint', tenant_id: 'contoso.onmicrosoft.com', client_id: 'abc', client_secret_env: 'SP_SECRET', hostname: 'contoso.sharepoint.com', site_path: '/sites/handbook', folder_path: 'Shared Documents/Policies' },
  { id: 'ghdocs', type: 'github', repo: 'garden/handbook', branch: 'main', token_env: 'GH_TOKEN', path: 'docs' },
  { id: 'ghapp', type: 'github', app_id: 4242, installation_id: '99', private_key_env: 'GH_KEY', api_url: 'https://ghe.example.com/api/v3' },
];

function refuse(entry: Record<string, unknown>, message: string | RegExp, env: Record<string, string> = ENV): void {
  let error: unknown;
  try {
    remoteSourcesFromSettings([entry], env, 'sources.json');
  } catch (e) {
    error = e;
  }
  expect(error, JSON.stringify(entry)).toBeInstanceOf(ConfigurationError);
  expect((error as Error).message).toMatch(message);
  for (const secret of Object.values(ENV)) expect((error as Error).message).not.toContain(secret);
}

describe('content source settings', () => {
  it('builds each kind from its entry, secrets from the variables it names', () => {
    const sources = remoteSourcesFromSettings(ENTRIES, ENV);
    expect(sources.map((s) => [s.id, s.type, s.constructor])).toEqual([
      ['s3docs', 's3', S3Source],
      ['gcsdocs', 'gcs', GcsSource],
      ['azdocs', 'azureblob', AzureBlobSource],
      ['spdocs', 'sharepoint', SharePointSource],
      ['ghdocs', 'github', GitHubSource],
      ['ghapp', 'github', GitHubSource],
    ]);
    expect(sources[0]).toMatchObject({ bucket: 'garden-docs', region: 'eu-west-1', prefix: 'docs/' });
    expect(sources[1]).toMatchObject({ name: 'GCS docs', metadata: { team: 'a' } });
    expect(sources[3]!.prefix).toBe('Shared Documents/Policies/');
    expect(sources[4]).toMatchObject({ repo: 'garden/handbook', branch: 'main', prefix: 'docs/' });
    expect(remoteSourceFromSettings({ ...ENTRIES[2], type: 'azure_blob' }, ENV).type).toBe('azureblob');
  });

  it('refuses bad entries naming the entry and the field, without echoing a secret', () => {
    refuse({ ...ENTRIES[0], secret_access_key: 's3-secret-value' }, 'sources.json[0] "s3docs": secret_access_key must not be given inline; put it in an environment variable and name that variable in secret_access_key_env');
    refuse({ ...ENTRIES[0], buckt: 'x' }, 'sources.json[0] "s3docs": unknown field buckt');
    refuse({ ...ENTRIES[0], secret_access_key_env: 'NOT_SET' }, 'secret_access_key_env names the environment variable NOT_SET, which is not set');
    refuse({ id: 'x', type: 'dropbox' }, 'sources.json[0] "x": type "dropbox" is not one of s3, gcs, azureblob, sharepoint, github');
    refuse({ type: 's3' }, 'sources.json[0]: id is required');
    refuse({ ...ENTRIES[2], tenant_id: 't' }, 'a service principal needs tenant_id, client_id and client_secret_env together');
    refuse({ ...ENTRIES[2], sas_token_env: undefined }, 'give exactly one of sasToken and servicePrincipal');
    refuse({ ...ENTRIES[5], installation_id: undefined }, 'GitHub App auth needs app_id, installation_id and private_key_env (or private_key_path) together');
    refuse({ ...ENTRIES[1], service_account_key_env: 'S3_SECRET' }, 'the service account key is not JSON');
    refuse({ ...ENTRIES[1], service_account_key_env: undefined, credentials_path: join(dir, 'missing.json') }, 'credentials_path cannot be read (ENOENT)');
    refuse({ ...ENTRIES[0], timeout_ms: 'fast' }, 'timeout_ms must be a whole number');
    refuse({ ...ENTRIES[0], metadata: [1] }, 'metadata must be an object');
    expect(() => remoteSourcesFromSettings([ENTRIES[0], ENTRIES[0]], ENV, 'sources.json')).toThrow('sources.json: two content sources have the id "s3docs"');
    expect(() => remoteSourcesFromSettings({}, ENV)).toThrow('KNOWLEDGE_CONTENT_SOURCES must be a JSON array of content sources');
  });

  it('reads KNOWLEDGE_CONTENT_SOURCES as inline JSON or a file path', () => {
    const file = join(dir, 'sources.json');
    writeFileSync(file, JSON.stringify(ENTRIES.slice(0, 2)));
    const keyFile = join(dir, 'key.json');
    writeFileSync(keyFile, ENV.GCS_KEY);
    expect(remoteSourcesFromEnvironment({ ...ENV, KNOWLEDGE_CONTENT_SOURCES: file }).map((s) => s.id)).toEqual(['s3docs', 'gcsdocs']);
    const inline = [{ ...ENTRIES[1], service_account_key_env: undefined, credentials_path: keyFile }];
    expect(remoteSourcesFromEnvironment({ ...ENV, KNOWLEDGE_CONTENT_SOURCES: JSON.stringify(inline) })[0]!.type).toBe('gcs');
    expect(remoteSourcesFromEnvironment({ KNOWLEDGE_CONTENT_SOURCES: ' ' })).toEqual([]);
    expect(() => remoteSourcesFromEnvironment({ KNOWLEDGE_CONTENT_SOURCES: '[{' })).toThrow(/^KNOWLEDGE_CONTENT_SOURCES is not valid JSON/);
    expect(() => remoteSourcesFromEnvironment({ KNOWLEDGE_CONTENT_SOURCES: join(dir, 'nope.json') })).toThrow('KNOWLEDGE_CONTENT_SOURCES is neither JSON nor a readable file (ENOENT');
    writeFileSync(file, JSON.stringify([{ ...ENTRIES[0], region: 5 }]));
    expect(() => remoteSourcesFromEnvironment({ ...ENV, KNOWLEDGE_CONTENT_SOURCES: file })).toThrow(`${file}[0] "s3docs": region must be a string`);
  });
});
