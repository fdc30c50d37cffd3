/**
 * Files by drag and drop or the file picker, several at once, each uploaded on its own with a
 * progress bar and its outcome (accepted, or the runtime's reason for refusing it).
 */
import { useState } from 'preact/hooks';
import { messageOf } from '../../api/errors';
import { uploadFile } from '../../api/upload';

interface Upload {
  key: number;
  name: string;
  progress: number;
  outcome: 'sending' | 'accepted' | 'refused';
  message?: string;
}

interface Props {
  knowledgeId: string | undefined;
  fields: Record<string, string>;
  onAdded(): void;
}

let nextKey = 0;

export function FileUploads({ knowledgeId, fields, onAdded }: Props) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const update = (key: number, change: Partial<Upload>) => setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...change } : u)));

  const start = (files: FileList | null) => {
    if (!files) return;
    for (const file of Array.from(files)) {
      const key = nextKey++;
      setUploads((all) => [...all, { key, name: file.name, progress: 0, outcome: 'sending' }]);
      uploadFile({ knowledgeId, file, fields, onProgress: (progress) => update(key, { progress }) }).then(
        () => {
          update(key, { outcome: 'accepted', progress: 1 });
          onAdded();
        },
        (failure: unknown) => update(key, { outcome: 'refused', message: messageOf(failure) }),
      );
    }
  };

  return (
    <div class="uploads">
      <div
        class={over ? 'dropzone over' : 'dropzone'}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          start(e.dataTransfer?.files ?? null);
        }}
      >
        <p>Drop files here, or choose them:</p>
        <label for="file-picker">Files to upload</label>{' '}
        <input
          id="file-picker"
          type="file"
          multiple
          onChange={(e) => {
            start(e.currentTarget.files);
            e.currentTarget.value = '';
          }}
        />
      </div>
      {uploads.length > 0 ? (
        <ul class="upload-list" aria-label="Uploads">
          {uploads.map((u) => (
            <li key={u.key} data-testid="upload">
              <span class="name">{u.name}</span>
              <progress max={1} value={u.progress} aria-label={`Upload of ${u.name}`} />
              <span class={`badge ${u.outcome === 'refused' ? 'failed' : u.outcome === 'accepted' ? 'completed' : 'processing'}`}>
                {u.outcome}
              </span>
              {u.message ? <span class="error"> {u.message}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
