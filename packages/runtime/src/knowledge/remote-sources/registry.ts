/**
 * @module knowledge/remote-sources/registry
 * The one place the five kinds are registered: how a settings entry (from
 * `KNOWLEDGE_CONTENT_SOURCES`, for runtimes configured by environment) becomes a source.
 *
 * `KNOWLEDGE_CONTENT_SOURCES` holds a JSON array, or the path of a JSON file holding one;
 * settings/content-sources reads it. Each entry is `{id, type, name?, metadata?, prefix?,
 * ...settings}` with snake_case settings. Secrets are never inline: an entry names the
 * environment variable that holds each one (`secret_access_key_env: "DOCS_S3_SECRET"`), so the
 * file can be committed and the variable injected. A secret given inline is refused, as is an
 * unknown field (a typo would otherwise silently drop a setting); every refusal names the entry
 * and the field, and fails the start.
 */
import { ConfigurationError } from '../../errors.js';
import { CONTENT_SOURCES_VARIABLE, readContentSourcesSetting } from '../../settings/content-sources.js';
import type { Environment } from '../../settings/environment.js';
import { AzureBlobSource } from './azure-blob.js';
import { EntryReader, type Entry } from './entry-reader.js';
import { GcsSource, type GcsServiceAccountKey } from './gcs.js';
import { GitHubSource } from './github.js';
import { checkUniqueIds, type RemoteSource, type RemoteSourceType } from './remote-source.js';
import { S3Source } from './s3.js';
import { SharePointSource } from './sharepoint.js';

type Factory = (entry: EntryReader) => RemoteSource;

/** Each kind's entry fields (snake_case) mapped to its options. */
const KINDS: Record<RemoteSourceType, Factory> = {
  s3: (e) => {
    const sessionToken = e.secret('session_token');
    const endpoint = e.text('endpoint');
    const region = e.text('region');
    const forcePathStyle = e.boolean('force_path_style');
    return new S3Source({
      ...e.base(),
      bucket: e.text('bucket') ?? e.required('bucket_name'),
      ...(region ? { region } : {}),
      ...(endpoint ? { endpoint } : {}),
      ...(forcePathStyle !== undefined ? { forcePathStyle } : {}),
      credentials: { accessKeyId: e.requiredSecret('access_key_id'), secretAccessKey: e.requiredSecret('secret_access_key'), ...(sessionToken ? { sessionToken } : {}) },
    });
  },
  gcs: (e) => {
    const keyText = e.secret('service_account_key') ?? e.file('credentials_path');
    let serviceAccountKey: GcsServiceAccountKey | undefined;
    if (keyText !== undefined) {
      try {
        serviceAccountKey = JSON.parse(keyText) as GcsServiceAccountKey;
      } catch {
        throw new ConfigurationError(`${e.where}: the service account key is not JSON (a key file as Google issues it)`);
      }
    }
    const accessToken = e.secret('access_token');
    const project = e.text('project');
    const endpoint = e.text('endpoint');
    return new GcsSource({
      ...e.base(),
      bucket: e.text('bucket') ?? e.required('bucket_name'),
      ...(project ? { project } : {}),
      ...(endpoint ? { endpoint } : {}),
      ...(serviceAccountKey ? { serviceAccountKey } : {}),
      ...(accessToken ? { accessToken } : {}),
    });
  },
  azureblob: (e) => {
    const sasToken = e.secret('sas_token');
    const tenantId = e.text('tenant_id');
    const clientId = e.text('client_id');
    const clientSecret = e.secret('client_secret');
    const endpoint = e.text('endpoint');
    const authorityHost = e.text('authority_host');
    const principal = tenantId !== undefined || clientId !== undefined || clientSecret !== undefined;
    if (principal && (tenantId === undefined || clientId === undefined || clientSecret === undefined)) {
      throw new ConfigurationError(`${e.where}: a service principal needs tenant_id, client_id and client_secret_env together`);
    }
    return new AzureBlobSource({
      ...e.base(),
      account: e.text('account') ?? e.required('storage_account'),
      container: e.required('container'),
      ...(sasToken ? { sasToken } : {}),
      ...(principal ? { servicePrincipal: { tenantId: tenantId!, clientId: clientId!, clientSecret: clientSecret! } } : {}),
      ...(endpoint ? { endpoint } : {}),
      ...(authorityHost ? { authorityHost } : {}),
    });
  },
  sharepoint: (e) => {
    const sitePath = e.text('site_path');
    const siteId = e.text('site_id');
    const driveId = e.text('drive_id');
    const graphUrl = e.text('graph_url');
    const authorityHost = e.text('authority_host');
    const folder = e.text('folder_path');
    const base = e.base();
    if (folder !== undefined && base.prefix !== undefined) throw new ConfigurationError(`${e.where}: give prefix or folder_path, not both`);
    return new SharePointSource({
      ...base,
      ...(folder !== undefined ? { prefix: folder } : {}),
      tenantId: e.required('tenant_id'),
      clientId: e.required('client_id'),
      clientSecret: e.requiredSecret('client_secret'),
      hostname: e.required('hostname'),
      ...(sitePath ? { sitePath } : {}),
      ...(siteId ? { siteId } : {}),
      ...(driveId ? { driveId } : {}),
      ...(graphUrl ? { graphUrl } : {}),
      ...(authorityHost ? { authorityHost } : {}),
    });
  },
  github: (e) => {
    const token = e.secret('token');
    const appId = e.numberOrText('app_id');
    const installationId = e.numberOrText('installation_id');
    const privateKey = e.secret('private_key') ?? e.file('private_key_path');
    const app = appId !== undefined || installationId !== undefined || privateKey !== undefined;
    if (app && (appId === undefined || installationId === undefined || privateKey === undefined)) {
      throw new ConfigurationError(`${e.where}: GitHub App auth needs app_id, installation_id and private_key_env (or private_key_path) together`);
    }
    const repo = e.text('repo');
    const branch = e.text('branch');
    const apiUrl = e.text('api_url');
    const folder = e.text('path');
    const base = e.base();
    if (folder !== undefined && base.prefix !== undefined) throw new ConfigurationError(`${e.where}: give prefix or path, not both`);
    return new GitHubSource({
      ...base,
      ...(folder !== undefined ? { prefix: folder } : {}),
      ...(repo ? { repo } : {}),
      ...(branch ? { branch } : {}),
      ...(apiUrl ? { apiUrl } : {}),
      ...(token ? { token } : {}),
      ...(app ? { app: { appId: appId!, installationId: installationId!, privateKey: privateKey! } } : {}),
    });
  },
};

/** Spellings of a type accepted besides the canonical one. */
const ALIASES: Record<string, RemoteSourceType> = { azure_blob: 'azureblob', azure: 'azureblob', google_cloud_storage: 'gcs' };

/** One source from one settings entry. */
export function remoteSourceFromSettings(entry: unknown, env: Readonly<Environment> = process.env, label = 'content source'): RemoteSource {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new ConfigurationError(`${label} must be a JSON object`);
  const fields = entry as Entry;
  const where = typeof fields.id === 'string' ? `${label} "${fields.id}"` : label;
  const raw = fields.type;
  if (typeof raw !== 'string') throw new ConfigurationError(`${where}: type is required (one of ${Object.keys(KINDS).join(', ')})`);
  const type = (raw in KINDS ? raw : ALIASES[raw.toLowerCase()]) as RemoteSourceType | undefined;
  if (!type) throw new ConfigurationError(`${where}: type "${raw}" is not one of ${Object.keys(KINDS).join(', ')}`);
  const reader = new EntryReader(fields, where, env);
  const source = KINDS[type](reader);
  reader.finish();
  return source;
}

/** Sources from a parsed JSON array; ids must be unique. */
export function remoteSourcesFromSettings(entries: unknown, env: Readonly<Environment> = process.env, origin = CONTENT_SOURCES_VARIABLE): RemoteSource[] {
  if (!Array.isArray(entries)) throw new ConfigurationError(`${origin} must be a JSON array of content sources`);
  const sources = entries.map((entry, index) => remoteSourceFromSettings(entry, env, `${origin}[${index}]`));
  checkUniqueIds(sources, origin);
  return sources;
}

/** `KNOWLEDGE_CONTENT_SOURCES` (settings/content-sources): JSON, or the path of a JSON file; none when unset. */
export function remoteSourcesFromEnvironment(env: Readonly<Environment> = process.env): RemoteSource[] {
  const setting = readContentSourcesSetting(env);
  return setting ? remoteSourcesFromSettings(setting.entries, env, setting.origin) : [];
}
