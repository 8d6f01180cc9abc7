import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Api } from './api';
import { Home } from './components/home';
import { KeyForm } from './components/key-form';
import { SessionPage } from './components/session-page';

const api = new Api();
const SESSION_PATH = /^\/app\/sessions\/([^/]+)\/?$/;

/** The viewer: /app/ (start or open a session) and /app/sessions/{id} (watch and steer it). */
function App() {
  const [path, setPath] = useState(location.pathname);
  const [needKey, setNeedKey] = useState(false);
  // Bumped when a key is entered: the page remounts and retries with it.
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const onPop = () => setPath(location.pathname);
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const go = (to: string) => {
    history.pushState(null, '', to);
    setPath(to);
  };
  const id = SESSION_PATH.exec(path)?.[1];
  return (
    <>
      <nav class="top">
        <a
          href="/app/"
          onClick={(e) => {
            e.preventDefault();
            go('/app/');
          }}
        >
          <b>bo1</b> Board of One
        </a>
        <span class="key-state">
          {api.hasKey() ? (
            <button
              type="button"
              class="link"
              onClick={() => {
                api.setKey(null);
                setAttempt(attempt + 1);
              }}
            >
              forget the API key
            </button>
          ) : null}
          <a href="/docs">API docs</a>
        </span>
      </nav>
      {needKey && (
        <KeyForm
          api={api}
          onSaved={() => {
            setNeedKey(false);
            setAttempt(attempt + 1);
          }}
        />
      )}
      {id ? (
        <SessionPage key={`${id}:${attempt}`} api={api} id={decodeURIComponent(id)} onAuthNeeded={() => setNeedKey(true)} />
      ) : (
        <Home key={attempt} api={api} go={go} onAuthNeeded={() => setNeedKey(true)} />
      )}
    </>
  );
}

const root = document.getElementById('app')!;
// The boot message is static HTML: Preact diffs against what is there, so clear it first.
root.textContent = '';
render(<App />, root);
