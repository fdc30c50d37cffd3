/**
 * Where a message is written: Enter sends, Shift+Enter starts a new line; while a run streams,
 * Cancel stops it (the runtime keeps what was said so far).
 */
import { useState } from 'preact/hooks';

interface Props {
  disabled: boolean;
  streaming: boolean;
  onSend(message: string): void;
  onCancel(): void;
}

export function Composer({ disabled, streaming, onSend, onCancel }: Props) {
  const [message, setMessage] = useState('');
  const send = () => {
    if (!message.trim() || disabled || streaming) return;
    onSend(message);
    setMessage('');
  };
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label for="message">Message</label>
      <textarea
        id="message"
        value={message}
        disabled={disabled}
        aria-describedby="message-help"
        onInput={(e) => setMessage(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            send();
          }
        }}
      />
      <p id="message-help" class="muted">
        Enter sends, Shift+Enter adds a line.
      </p>
      <div class="actions">
        <button type="submit" disabled={disabled || streaming || !message.trim()}>
          Send
        </button>
        {streaming ? (
          <button type="button" class="danger" onClick={onCancel}>
            Cancel run
          </button>
        ) : null}
      </div>
    </form>
  );
}
