/** Copies a text to the clipboard and says so (to screen readers too). */
import { useState } from 'preact/hooks';

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" class="secondary" aria-label={label} onClick={copy}>
        Copy
      </button>
      <span class="status" role="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text and copy it' : ''}
      </span>
    </>
  );
}
