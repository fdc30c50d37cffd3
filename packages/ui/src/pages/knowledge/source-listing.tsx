/** One folder of a remote source: its sub-folders (to open or ingest whole) and its files. */
import type { components } from '../../api/schema';

type Listing = components['schemas']['KnowledgeSourceFiles'];

interface Props {
  listing: Listing;
  mayIngest: boolean;
  onOpen(prefix: string): void;
  onIngest(path: string): void;
}

function size(bytes: number | null): string {
  if (bytes === null) return '';
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} kB`;
}

export function SourceListing({ listing, mayIngest, onOpen, onIngest }: Props) {
  if (listing.folders.length === 0 && listing.files.length === 0) return <p class="muted">This folder is empty.</p>;
  return (
    <table data-testid="source-listing">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Size</th>
          <th scope="col">Modified</th>
          {mayIngest ? <th scope="col">Ingest</th> : null}
        </tr>
      </thead>
      <tbody>
        {listing.folders.map((folder) => (
          <tr key={folder.prefix} data-testid="source-folder">
            <td>
              <button type="button" class="link" onClick={() => onOpen(folder.prefix)} aria-label={`Open folder ${folder.name}`}>
                {folder.name}/
              </button>
            </td>
            <td />
            <td />
            {mayIngest ? (
              <td>
                <button type="button" class="secondary" onClick={() => onIngest(folder.prefix)} aria-label={`Ingest folder ${folder.prefix}`}>
                  Ingest
                </button>
              </td>
            ) : null}
          </tr>
        ))}
        {listing.files.map((file) => (
          <tr key={file.key} data-testid="source-file">
            <td>{file.name}</td>
            <td>{size(file.size)}</td>
            <td>{file.last_modified ? new Date(file.last_modified).toLocaleString() : ''}</td>
            {mayIngest ? (
              <td>
                <button type="button" class="secondary" onClick={() => onIngest(file.key)} aria-label={`Ingest ${file.key}`}>
                  Ingest
                </button>
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
