/**
 * Adding content: files (dropped or picked, several at once, each with its own progress), a URL
 * or a text. Every upload answers 202 at once; the records list shows processing, then
 * completed or failed with the reason.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { messageOf, unwrap } from '../../api/errors';
import { ErrorText } from '../../components/error-text';
import type { KnowledgeConfig } from './base-summary';
import { FileUploads } from './file-uploads';

interface Props {
  knowledgeId: string | undefined;
  config: KnowledgeConfig | undefined;
  onAdded(): void;
}

export function AddContent({ knowledgeId, config, onAdded }: Props) {
  const [chunker, setChunker] = useState('');
  const [url, setUrl] = useState('');
  const [text, setText] = useState('');
  const [textName, setTextName] = useState('');
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState('');
  const chunkers = Object.keys(config?.chunkers ?? {});
  const query = knowledgeId ? { knowledge_id: knowledgeId } : {};
  const common: Record<string, string> = chunker ? { chunker } : {};

  const send = async (body: { url: string } | { text_content: string; name?: string }, done: () => void) => {
    setError(undefined);
    setStatus('Sending…');
    try {
      await unwrap(api.POST('/knowledge/content', { params: { query }, body: { ...body, ...common } }));
      setStatus('Accepted: processing');
      done();
      onAdded();
    } catch (failure) {
      setStatus('');
      setError(messageOf(failure));
    }
  };

  return (
    <section aria-labelledby="add-heading">
      <h2 id="add-heading">Add content</h2>
      <div class="field">
        <label for="chunker">Chunker</label>
        <select id="chunker" value={chunker} onChange={(e) => setChunker(e.currentTarget.value)}>
          <option value="">The reader's default</option>
          {chunkers.map((key) => (
            <option key={key} value={key}>
              {key}
            </option>
          ))}
        </select>
      </div>
      <FileUploads knowledgeId={knowledgeId} fields={common} onAdded={onAdded} />
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (url.trim()) void send({ url: url.trim() }, () => setUrl(''));
        }}
      >
        <div class="field">
          <label for="add-url">URL</label>
          <input id="add-url" type="url" size={40} value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </div>
        <button type="submit">Add URL</button>
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim()) void send({ text_content: text, ...(textName.trim() ? { name: textName.trim() } : {}) }, () => setText(''));
        }}
      >
        <div class="field">
          <label for="add-text-name">Text name</label>
          <input id="add-text-name" value={textName} onInput={(e) => setTextName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="add-text">Text</label>
          <textarea id="add-text" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </div>
        <button type="submit">Add text</button>
      </form>
      <p class="status" role="status">
        {status}
      </p>
      <ErrorText message={error} />
    </section>
  );
}
