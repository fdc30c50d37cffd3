/**
 * @module knowledge/remote-sources
 * The remote content sources' public surface, re-exported by knowledge/index.ts.
 *
 * The contract and the errors, then each kind's class and options, then the settings entry
 * points. The list of kinds that KNOWLEDGE_CONTENT_SOURCES can name is list.ts.
 */
export { REMOTE_SOURCE_TYPES, isRemoteSource, type RemoteSource, type RemoteSourceType, type RemoteFile, type RemoteFolder, type RemoteListPage, type RemoteListOptions, type RemoteCallOptions, type RemoteDownload, type RemoteSourceBaseOptions } from './remote-source.js';
export { RemoteSourceError, type RemoteFailure } from './errors.js';
export { S3Source, type S3SourceOptions } from './s3.js';
export { GcsSource, type GcsSourceOptions, type GcsServiceAccountKey } from './gcs.js';
export { AzureBlobSource, type AzureBlobSourceOptions, type AzureServicePrincipal } from './azure-blob.js';
export { GitHubSource, type GitHubSourceOptions, type GitHubAppAuth } from './github.js';
export { SharePointSource, type SharePointSourceOptions } from './sharepoint.js';
export { remoteSourceFromSettings, remoteSourcesFromSettings, remoteSourcesFromEnvironment } from './registry.js';
