/**
 * Adding a memory by hand: its text, its topics (comma-separated) and, for a caller that may
 * write any user's memories, whose it is (a user signed in as themselves always writes their own).
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { messageOf, unwrap } from '../../api/errors';
import { ErrorText } from '../../components/error-text';

export function AddMemory({ user, onAdded }: { user: string; onAdded(): void }) {
  const [userId, setUserId] = useState(user);
  const [text, setText] = useState('');
  const [topics, setTopics] = useState('');
  const [error, setError] = useState<string>();

  const add = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const list = topics
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    try {
      await unwrap(api.POST('/memories', { body: { memory: text.trim(), ...(list.length ? { topics: list } : {}), ...(userId.trim() ? { user_id: userId.trim() } : {}) } }));
      setText('');
      setTopics('');
      onAdded();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  return (
    <section aria-labelledby="add-memory-heading" class="card">
      <h2 id="add-memory-heading">Add a memory</h2>
      <form onSubmit={add}>
        <div class="row">
          <div class="field">
            <label for="add-memory-user">For user</label>
            <input id="add-memory-user" value={userId} onInput={(e) => setUserId(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="add-memory-topics">Topics (comma-separated)</label>
            <input id="add-memory-topics" value={topics} onInput={(e) => setTopics(e.currentTarget.value)} />
          </div>
        </div>
        <div class="field">
          <label for="add-memory-text">Memory</label>
          <input id="add-memory-text" required maxLength={2000} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </div>
        <div class="actions">
          <button type="submit">Add</button>
        </div>
      </form>
      <ErrorText message={error} />
    </section>
  );
}
