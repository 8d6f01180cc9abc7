import { useState } from 'preact/hooks';
import type { PendingCheckpoint } from '../session-model';

type Data = Record<string, any>;
export type Answer = (body: Record<string, unknown>) => Promise<void>;

const LABELS: Record<string, string> = {
  continue: 'Continue',
  skip_to_vote: 'Skip to the vote',
  skip_to_final: 'Skip to the final recommendation',
};

/**
 * The checkpoint a session waits on, with a form for each kind: answer the
 * questions, edit the statement or the sub-problems, change the board,
 * intervene after a round. `continue` is always offered.
 */
export function CheckpointCard({ cp, answer }: { cp: PendingCheckpoint; answer: Answer }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const send = async (body: Record<string, unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await answer(body);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  };
  const simple = cp.actions.filter((a) => a in LABELS);
  return (
    <section class="panel checkpoint" data-checkpoint={cp.checkpointId} data-kind={cp.kind} aria-live="polite">
      <header>
        <h2>Your turn</h2>
        <span class="muted">expires {new Date(cp.expiresAt).toLocaleString()}</span>
      </header>
      <p class="prompt">{cp.prompt}</p>
      <fieldset disabled={busy}>
        <KindForm cp={cp} send={send} />
        <div class="actions">
          {simple.map((a) => (
            <button type="button" key={a} class={a === 'continue' ? 'primary' : ''} data-action={a} onClick={() => send({ action: a })}>
              {LABELS[a]}
            </button>
          ))}
        </div>
      </fieldset>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

function KindForm({ cp, send }: { cp: PendingCheckpoint; send: Answer }) {
  const p = cp.proposal;
  switch (cp.kind) {
    case 'clarification':
      return <Clarification questions={p.questions ?? []} send={send} />;
    case 'statement':
      return <Statement proposal={p} send={send} />;
    case 'sub_problems':
      return <SubProblems list={p.subProblems ?? []} send={send} />;
    case 'board':
      return <Board proposal={p} send={send} />;
    case 'round_end':
      return <RoundEnd proposal={p} canIntervene={cp.actions.includes('intervene')} send={send} />;
    case 'next_sub_problem':
      return (
        <>
          {p.decided && (
            <p class="decided">
              Decided, <b>{p.decided.title}</b>: {p.decided.outcome}. <span class="muted">{p.decided.recommendation}</span>
            </p>
          )}
          <p>
            Next: <b>{p.next?.title}</b> ({p.done} of {p.total} decided)
          </p>
        </>
      );
    default:
      return null;
  }
}

function Clarification({ questions, send }: { questions: Data[]; send: Answer }) {
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const given = Object.fromEntries(Object.entries(answers).filter(([, a]) => a.trim()));
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void send({ action: 'answer', answers: given });
      }}
    >
      {questions.map((q) => (
        <label key={q.id}>
          <span>
            {q.question} <span class="muted">({q.why})</span>
          </span>
          <textarea
            name={q.id}
            rows={2}
            placeholder={q.assumption ? `If unanswered, assumed: ${q.assumption}` : ''}
            value={answers[q.id] ?? ''}
            onInput={(e) => setAnswers({ ...answers, [q.id]: e.currentTarget.value })}
          />
        </label>
      ))}
      <button type="submit" data-action="answer" disabled={!Object.keys(given).length}>
        Send answers
      </button>
    </form>
  );
}

function Statement({ proposal, send }: { proposal: Data; send: Answer }) {
  const [text, setText] = useState<string>(proposal.statement ?? '');
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void send({ action: 'edit', statement: text });
      }}
    >
      <textarea name="statement" rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      {(proposal.assumptions ?? []).length > 0 && (
        <ul class="muted">
          {(proposal.assumptions as string[]).map((a) => (
            <li key={a}>Assumption: {a}</li>
          ))}
        </ul>
      )}
      <button type="submit" data-action="edit" disabled={text.trim() === (proposal.statement ?? '').trim()}>
        Use my statement
      </button>
    </form>
  );
}

function SubProblems({ list, send }: { list: Data[]; send: Answer }) {
  const [items, setItems] = useState(list.map((s) => ({ id: s.id as string, title: s.title as string, goal: s.goal as string, keep: true })));
  const update = (i: number, patch: Partial<(typeof items)[number]>) => setItems(items.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void send({ action: 'edit', sub_problems: items.filter((x) => x.keep).map(({ id, title, goal }) => ({ id, title, goal })) });
      }}
    >
      {items.map((s, i) => (
        <div class="sub-problem-edit" key={s.id}>
          <label class="inline">
            <input type="checkbox" checked={s.keep} onChange={(e) => update(i, { keep: e.currentTarget.checked })} /> keep
          </label>
          <input name={`title-${s.id}`} value={s.title} onInput={(e) => update(i, { title: e.currentTarget.value })} />
          <textarea name={`goal-${s.id}`} rows={2} value={s.goal} onInput={(e) => update(i, { goal: e.currentTarget.value })} />
        </div>
      ))}
      <button type="submit" data-action="edit" disabled={!items.some((x) => x.keep)}>
        Use these sub-problems
      </button>
    </form>
  );
}

function Board({ proposal, send }: { proposal: Data; send: Answer }) {
  const [remove, setRemove] = useState<string[]>([]);
  const [want, setWant] = useState('');
  const toggle = (code: string, on: boolean) => setRemove(on ? [...remove, code] : remove.filter((c) => c !== code));
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void send({ action: 'edit', board: { remove, ...(want.trim() && { want: [want.trim()] }) } });
      }}
    >
      <ul class="members">
        {(proposal.members ?? []).map((m: Data) => (
          <li key={m.code}>
            <label class="inline">
              <input type="checkbox" checked={remove.includes(m.code)} onChange={(e) => toggle(m.code, e.currentTarget.checked)} /> remove
            </label>{' '}
            <b>{m.name}</b>, {m.title}
          </li>
        ))}
      </ul>
      <label>
        <span>Add a kind of expert (e.g. “legal”)</span>
        <input name="want" value={want} onInput={(e) => setWant(e.currentTarget.value)} />
      </label>
      <button type="submit" data-action="edit" disabled={!remove.length && !want.trim()}>
        Change the board
      </button>
    </form>
  );
}

function RoundEnd({ proposal, canIntervene, send }: { proposal: Data; canIntervene: boolean; send: Answer }) {
  const [message, setMessage] = useState('');
  return (
    <div class="stack">
      <p>
        After round {proposal.round}/{proposal.maxRounds}: {proposal.summary}
      </p>
      <ul class="positions">
        {(proposal.positions ?? []).map((x: Data) => (
          <li key={x.persona}>
            <b>{x.name}</b>: {x.position}
          </li>
        ))}
      </ul>
      {(proposal.questions ?? []).length > 0 && (
        <ul class="questions">
          {(proposal.questions as Data[]).map((q) => (
            <li key={q.persona}>
              {q.name} asks: {q.question}
            </li>
          ))}
        </ul>
      )}
      {canIntervene && (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void send({ action: 'intervene', message });
          }}
        >
          <label>
            <span>Tell the board what it missed (they answer it first next round)</span>
            <textarea name="message" rows={2} value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
          </label>
          <button type="submit" data-action="intervene" disabled={!message.trim()}>
            Intervene
          </button>
        </form>
      )}
    </div>
  );
}
