import { useState } from 'preact/hooks';
import type { Api } from '../api';

/** Asks for an API key when the API wants one: kept in this tab only (sessionStorage). */
export function KeyForm({ api, onSaved }: { api: Api; onSaved(): void }) {
  const [key, setKey] = useState('');
  return (
    <section class="panel key-form">
      <h2>This API needs a key</h2>
      <p class="muted">
        Create one with <code>npm run keys -- create --tenant me --name browser</code>. It stays in this tab only; the live stream uses a short-lived stream
        token instead.
      </p>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          api.setKey(key);
          onSaved();
        }}
      >
        <input name="api-key" type="password" autocomplete="off" placeholder="bo1_…" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={!key.trim()}>
          Use this key
        </button>
      </form>
    </section>
  );
}
