/**
 * @module knowledge/sources
 * Remote content sources: places a knowledge base browses and ingests from by path.
 */
export { REMOTE_SOURCE_TYPES, isRemoteSource, type RemoteSource, type RemoteSourceType, type RemoteFile, type RemoteFolder, type RemoteListPage, type RemoteListOptions, type RemoteCallOptions, type RemoteDownload, type RemoteSourceBaseOptions } from './remote-source.js';
export { RemoteSourceError, type RemoteFailure } from './errors.js';
export { S3Source, type S3SourceOptions } from './s3.js';
export { GcsSource, type GcsSourceOptions, type GcsServiceAccountKey } from './gcs.js';
export { AzureBlobSource, type AzureBlobSourceOptions, type AzureServicePrincipal } from './azure-blob.js';
export { GitHubSource, type GitHubSourceOptions, type GitHubAppAuth } from './github.js';
export { SharePointSource, type SharePointSourceOptions } from './sharepoint.js';
export { remoteSourceFromSettings, remoteSourcesFromSettings, remoteSourcesFromEnvironment } from './registry.js';
