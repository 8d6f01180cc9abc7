import { useEffect, useState } from 'preact/hooks';
import { ApiError, describeError, type Api, type SessionSummary } from '../api';

/** Start a session from a form, or open one: by id or from the recent list. */
export function Home({ api, go, onAuthNeeded }: { api: Api; go(path: string): void; onAuthNeeded(): void }) {
  const [problem, setProblem] = useState('');
  const [context, setContext] = useState('');
  const [mode, setMode] = useState<'auto' | 'interactive'>('auto');
  const [budget, setBudget] = useState('');
  const [openId, setOpenId] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [recent, setRecent] = useState<SessionSummary[] | null>(null);

  const failed = (err: unknown) => {
    if (err instanceof ApiError && err.status === 401) onAuthNeeded();
    setError(describeError(err));
  };
  useEffect(() => {
    api.listSessions().then((page) => setRecent(page.items), failed);
  }, []);

  const start = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { problem, context, mode, ...(budget && { budget_usd: Number(budget) }) };
      const { id } = await api.createSession(body);
      go(`/app/sessions/${id}`);
    } catch (err) {
      failed(err);
      setBusy(false);
    }
  };

  return (
    <main class="home">
      <section class="panel">
        <h1>Put a hard decision to the board</h1>
        <form class="stack start" onSubmit={start}>
          <label>
            <span>Your decision</span>
            <textarea name="problem" rows={3} required placeholder="Should I pivot my project management tool to serve only law firms?" value={problem} onInput={(e) => setProblem(e.currentTarget.value)} />
          </label>
          <label>
            <span>Context (resources, constraints, what success means)</span>
            <textarea name="context" rows={3} placeholder="$12K MRR, 100 customers; law firms pay $200/mo vs $80 average; churn is 30%." value={context} onInput={(e) => setContext(e.currentTarget.value)} />
          </label>
          <div class="row">
            <label class="inline">
              <input type="radio" name="mode" value="auto" checked={mode === 'auto'} onChange={() => setMode('auto')} /> Automatic
            </label>
            <label class="inline">
              <input type="radio" name="mode" value="interactive" checked={mode === 'interactive'} onChange={() => setMode('interactive')} /> Interactive (the board asks you as it goes)
            </label>
            <label class="inline">
              Budget (USD) <input name="budget" type="number" min="0.01" step="0.01" value={budget} onInput={(e) => setBudget(e.currentTarget.value)} />
            </label>
          </div>
          <button type="submit" class="primary" disabled={busy || !problem.trim()}>
            Start the deliberation
          </button>
        </form>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </section>
      <section class="panel">
        <h2>Open a session</h2>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            if (openId.trim()) go(`/app/sessions/${openId.trim()}`);
          }}
        >
          <input name="session-id" placeholder="session id" value={openId} onInput={(e) => setOpenId(e.currentTarget.value)} />
          <button type="submit">Open</button>
        </form>
        {recent && recent.length > 0 && (
          <ul class="recent">
            {recent.map((s) => (
              <li key={s.id}>
                <a
                  href={`/app/sessions/${s.id}`}
                  onClick={(e) => {
                    e.preventDefault();
                    go(`/app/sessions/${s.id}`);
                  }}
                >
                  {s.problem}
                </a>{' '}
                <span class={`badge status-${s.status}`}>{s.status.replace('_', ' ')}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}
