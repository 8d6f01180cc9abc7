import { useEffect, useMemo, useReducer, useState } from 'preact/hooks';
import { describeError, type Api } from '../api';
import { follow, type Connection } from '../follow';
import { SessionModel } from '../session-model';
import { CheckpointCard } from './checkpoint';
import { GenericEvent } from './generic';
import { Recommendation } from './recommendation';
import { SubProblemPanel } from './sub-problem';

const ENDED = new Set(['completed', 'failed', 'cancelled']);

/** One session, live: everything the stream says, the checkpoint to answer, cancel and the transcript. */
export function SessionPage({ api, id, onAuthNeeded }: { api: Api; id: string; onAuthNeeded(): void }) {
  const model = useMemo(() => new SessionModel(), [id]);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const [connection, setConnection] = useState<{ state: Connection; detail?: string | undefined }>({ state: 'connecting' });
  const [connections, setConnections] = useState(0);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let pending = false;
    const stream = follow({
      api,
      sessionId: id,
      lastSeq: () => model.lastSeq,
      onEvent: (e) => {
        // Many events arrive at once on a replay: one render per frame, not per event.
        if (model.apply(e) && !pending) {
          pending = true;
          requestAnimationFrame(() => {
            pending = false;
            rerender(0);
          });
        }
      },
      onConnection: (state, detail, status) => {
        if (state === 'live') setConnections((n) => n + 1);
        setConnection({ state, detail });
        if (status === 401) onAuthNeeded();
      },
    });
    return () => stream.stop();
  }, [id, model]);

  const act = async (what: () => Promise<unknown>) => {
    setError(null);
    try {
      await what();
    } catch (err) {
      setError(describeError(err));
    }
  };
  const download = () =>
    act(async () => {
      const markdown = await api.transcript(id);
      const url = URL.createObjectURL(new Blob([markdown], { type: 'text/markdown' }));
      const a = Object.assign(document.createElement('a'), { href: url, download: `bo1-${id}.md` });
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });

  const usage = model.usage;
  return (
    <main
      class="session"
      data-session={id}
      data-status={model.status}
      data-events={model.seen.size}
      data-last-seq={model.lastSeq}
      data-connection={connection.state}
      data-connections={connections}
    >
      <header class="session-head">
        <div>
          <h1>{model.problem || 'Loading the session…'}</h1>
          {model.context && <p class="context">{model.context}</p>}
          <p class="facts">
            <span class={`badge status-${model.status}`}>{model.status.replace('_', ' ')}</span>
            <span>{model.mode}</span>
            {model.provider && <span>{model.provider === 'simulated' ? 'simulated board (no model is called)' : model.provider}</span>}
            {usage && (
              <span class="cost">
                ${Number(usage.costUsd).toFixed(4)} · {usage.calls} model calls
              </span>
            )}
            <span class={`connection conn-${connection.state}`} title={connection.detail}>
              {connection.state}
            </span>
          </p>
        </div>
        <div class="actions">
          <button type="button" data-action="transcript" onClick={download}>
            Download transcript
          </button>
          {!ENDED.has(model.status) && (
            <button type="button" class="danger" data-action="cancel" onClick={() => confirm('Cancel this session now?') && act(() => api.cancel(id))}>
              Cancel
            </button>
          )}
        </div>
      </header>
      {connection.state === 'failed' && <p class="error" role="alert">The stream stopped: {connection.detail}</p>}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}

      {model.checkpoint && (
        <CheckpointCard key={model.checkpoint.checkpointId} cp={model.checkpoint} answer={(body) => api.resolve(id, model.checkpoint!.checkpointId, body).then(() => {})} />
      )}

      {model.ended && model.ended.type !== 'session.completed' && (
        <section class={`panel ended ${model.ended.type.replace('.', '-')}`} data-seq={model.ended.seq}>
          <h2>{model.ended.type === 'session.cancelled' ? 'Cancelled' : 'Failed'}</h2>
          <p>{model.ended.reason}</p>
        </section>
      )}

      {model.recommendation && <Recommendation rec={model.recommendation} />}

      <Intake model={model} />

      {model.subProblems.map((sp) => (
        <SubProblemPanel key={sp.id} sp={sp} model={model} />
      ))}

      {model.other.length > 0 && (
        <section class="panel other">
          <h2>Other events</h2>
          {model.other.map((e) => (
            <GenericEvent key={e.seq} event={e} />
          ))}
        </section>
      )}
    </main>
  );
}

function Intake({ model }: { model: SessionModel }) {
  const s = model.statement;
  if (!s && !model.questions.length && !model.members.length) return null;
  return (
    <section class="panel intake">
      {model.questions.length > 0 && (
        <>
          <h2>Clarifying questions</h2>
          <ul>
            {model.questions.map((q) => (
              <li key={q.id}>{q.question}</li>
            ))}
          </ul>
        </>
      )}
      {s && (
        <>
          <h2>The problem, as the board states it</h2>
          <p class="statement">{s.statement}</p>
          <ul class="muted">
            {(s.assumptions ?? []).map((a: string) => (
              <li key={a}>Assumption: {a}</li>
            ))}
          </ul>
        </>
      )}
      {model.decisions.length > 0 && (
        <>
          <h2>Your decisions</h2>
          <ul class="decisions">
            {model.decisions.map((d) => (
              <li key={d.seq} class="event decision" data-seq={d.seq}>
                <span class="muted">{d.kind.replace('_', ' ')}:</span> {d.text}
              </li>
            ))}
          </ul>
        </>
      )}
      {model.members.length > 0 && (
        <>
          <h2>The board</h2>
          <ul class="members">
            {model.members.map((m) => (
              <li key={m.code}>
                <b>{m.name}</b>, {m.title}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
