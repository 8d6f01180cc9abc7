import type { Round, SessionModel, SubProblem, Utterance } from '../session-model';
import type { Envelope } from '../events';
import { Bars, Meter, Sparkline } from './charts';
import { GenericEvent } from './generic';

const STAGES: Record<SubProblem['stage'], string> = {
  pending: 'waiting',
  debating: 'in debate',
  voting: 'voting',
  done: 'decided',
  skipped: 'skipped',
};

/** One sub-problem: who spoke each round, the round metrics, the straw vote, the votes and the board's synthesis. */
export function SubProblemPanel({ sp, model }: { sp: SubProblem; model: SessionModel }) {
  const current = sp.rounds.at(-1);
  const status = sp.stage === 'debating' && current ? `round ${current.round}/${current.maxRounds} (${current.phase})` : STAGES[sp.stage];
  return (
    <section class={`panel sub-problem sp-${sp.stage}`} data-sub-problem={sp.id}>
      <header>
        <h3>
          <span class="sp-index">
            {model.indexOf(sp.id)} of {model.subProblems.length}
          </span>{' '}
          {sp.title}
        </h3>
        <span class={`badge stage-${sp.stage}`}>{status}</span>
      </header>
      {sp.goal && <p class="goal">{sp.goal}</p>}
      {sp.panel.length > 0 && <p class="panel-list">Panel: {sp.panel.map((c) => model.nameOf(c)).join(', ')}</p>}
      {sp.skipped && <p class="note">Not deliberated: {sp.skipped}</p>}
      {sp.rounds.some((r) => r.metrics) && <RoundMetrics rounds={sp.rounds} />}
      {sp.rounds.map((r) => (
        <RoundView key={r.seq} round={r} open={r === current && sp.stage === 'debating'} />
      ))}
      {sp.straw.map((e) => (
        <GenericEvent key={e.seq} event={e} title="Straw vote" />
      ))}
      {sp.options && <Options options={sp.options.options ?? []} reversibility={sp.options.decisionReversibility} />}
      {sp.votes.length > 0 && <Votes sp={sp} model={model} />}
      {sp.synthesis && <Synthesis sp={sp} model={model} />}
      {sp.other.map((e) => (
        <GenericEvent key={e.seq} event={e} />
      ))}
    </section>
  );
}

function RoundMetrics({ rounds }: { rounds: Round[] }) {
  const measured = rounds.filter((r) => r.metrics);
  const series = (key: string) => measured.map((r) => Number(r.metrics?.[key] ?? 0));
  return (
    <div class="metrics" aria-label="Round metrics">
      <Sparkline label="convergence" values={series('convergence')} />
      <Sparkline label="novelty" values={series('novelty')} />
      <Sparkline label="conflict" values={series('conflict')} />
      <Sparkline label="relevance" values={series('relevance')} max={10} digits={1} />
      <p class="stop">{measured.at(-1)?.stop?.detail}</p>
    </div>
  );
}

function RoundView({ round, open }: { round: Round; open: boolean }) {
  const speakers = round.utterances.filter((u) => u.kind === 'contribution').map((u) => u.speaker);
  return (
    <details class="round" open={open} data-round={round.round}>
      <summary>
        Round {round.round}/{round.maxRounds} <span class="muted">({round.phase})</span>
        {speakers.length > 0 && <span class="speakers"> · {speakers.join(', ')}</span>}
      </summary>
      {round.utterances.map((u) => (
        <UtteranceView key={u.seq} u={u} />
      ))}
    </details>
  );
}

function UtteranceView({ u }: { u: Utterance }) {
  return (
    <div class={`event utterance ${u.kind}`} data-seq={u.seq}>
      <div class="speaker">
        {u.speaker}
        {u.confidence !== undefined && <Meter value={u.confidence} title="confidence" />}
      </div>
      <p>{u.text}</p>
      {u.position && <p class="position">Position: {u.position}</p>}
      {u.question && <p class="question">Question for you: {u.question}</p>}
    </div>
  );
}

function Options({ options, reversibility }: { options: Record<string, any>[]; reversibility?: string }) {
  return (
    <div class="options">
      <h4>Options {reversibility && <span class="muted">({reversibility === 'one_way' ? 'one-way door' : 'two-way door'})</span>}</h4>
      <ol>
        {options.map((o) => (
          <li key={o.id}>
            <b>{o.id}.</b> {o.title} — {o.description}
          </li>
        ))}
      </ol>
    </div>
  );
}

function Votes({ sp, model }: { sp: SubProblem; model: SessionModel }) {
  const t = sp.tally;
  const result = t ? (t.winner ? `Option ${t.winner}` : t.deferred ? 'Deferred: no supermajority for a one-way door' : `Tie: ${(t.tie ?? []).join(', ')}`) : null;
  return (
    <div class="votes">
      <h4>Votes{sp.calibrated && <span class="muted"> · confidence calibrated</span>}</h4>
      <table>
        <thead>
          <tr>
            <th>Expert</th>
            <th>Option</th>
            <th>Confidence</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {sp.votes.map((v) => (
            <tr key={v.seq} class="event vote" data-seq={v.seq}>
              <td>{v.name}</td>
              <td class="option">{v.optionId}</td>
              <td class="confidence">
                <Meter value={v.calibrated ?? v.confidence} />
                {v.calibrated !== undefined && v.calibrated !== v.confidence && <span class="muted calibration"> was {v.confidence.toFixed(2)}</span>}
              </td>
              <td>
                {v.rationale}
                {v.strongObjection && <p class="note">Strong objection: {v.strongObjection}</p>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {t && (
        <div class="tally">
          <Bars counts={t.distribution ?? {}} highlight={t.winner} />
          <p>
            <b>{result}</b> <span class="muted">({t.mechanism}, consensus {Number(t.consensus ?? 0).toFixed(2)})</span>
          </p>
          <p class="muted">{t.why}</p>
        </div>
      )}
      {sp.debateEffect && <DebateEffect effect={sp.debateEffect} model={model} straw={sp.straw} />}
    </div>
  );
}

function Synthesis({ sp, model }: { sp: SubProblem; model: SessionModel }) {
  const s = sp.synthesis?.synthesis ?? {};
  return (
    <div class="synthesis">
      <h4>The board's advice</h4>
      <p>{s.recommendation}</p>
      {s.rationale && <p class="muted">Why: {s.rationale}</p>}
      {(s.dissent ?? []).length > 0 && (
        <ul class="dissent">
          {(s.dissent as Record<string, string>[]).map((x) => (
            <li key={x.persona}>
              <b>{model.nameOf(x.persona ?? '')}</b>: {x.concern}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** What the debate bought, in the transcript's words: the final vote against the straw vote, and who moved and why. */
function DebateEffect({ effect, model, straw }: { effect: Record<string, any>; model: SessionModel; straw: Envelope[] }) {
  if (effect.changedOutcome === null || effect.changedOutcome === undefined) return null;
  // Straw positions by title: the final options are lettered A-D too and mean other things.
  const titles = new Map(((straw.at(-1)?.data.options ?? []) as Record<string, string>[]).map((o) => [o.id, o.title]));
  const favoured = effect.strawWinner ? `favoured "${titles.get(effect.strawWinner) ?? effect.strawWinner}"` : 'was split';
  const head = effect.changedOutcome ? `The debate changed the outcome: the straw vote ${favoured}.` : 'The debate confirmed what the straw vote on the opening positions chose.';
  return (
    <div class="debate-effect">
      <p>
        <b>{head}</b>
      </p>
      {(effect.positionChanges ?? []).length > 0 && (
        <ul>
          {(effect.positionChanges as Record<string, string>[]).map((c) => (
            <li key={c.persona}>
              {model.nameOf(c.persona ?? '')} moved from "{String(c.from).replace(/^[A-D]\.\s*/, '')}" in the straw vote to option {c.to}: <span class="muted">{c.reason}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
