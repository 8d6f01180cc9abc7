import { TERMINAL_EVENTS, type Envelope } from './events';

type Data = Record<string, any>;

export type Status = 'queued' | 'running' | 'awaiting_input' | 'completed' | 'failed' | 'cancelled';

/** Something said in a round, in the order it was said. */
export interface Utterance {
  seq: number;
  kind: 'contribution' | 'facilitator' | 'moderator' | 'research' | 'declined' | 'facts';
  speaker: string;
  text: string;
  /** Contributions: the stated position and confidence. */
  position?: string;
  confidence?: number;
  question?: string | null;
}

export interface Round {
  seq: number;
  round: number;
  maxRounds: number;
  phase: string;
  utterances: Utterance[];
  metrics?: Data;
  stop?: Data;
}

export interface Vote {
  seq: number;
  persona: string;
  name: string;
  optionId: string;
  confidence: number;
  /** After calibration, when it changed. */
  calibrated?: number;
  rationale: string;
  strongObjection: string | null;
}

export interface SubProblem {
  id: string;
  title: string;
  goal: string;
  stage: 'pending' | 'debating' | 'voting' | 'done' | 'skipped';
  maxRounds: number;
  panel: string[];
  rounds: Round[];
  options?: Data;
  /** `vote.straw` events (shown generically: their shape is the engine's to change). */
  straw: Envelope[];
  votes: Vote[];
  calibrated: boolean;
  tally?: Data;
  /** The final vote against the straw vote: whether the debate changed the outcome, who moved and why. */
  debateEffect?: Data;
  reversibility?: string;
  synthesis?: Data;
  completed?: Data;
  skipped?: string;
  /** Events of this sub-problem the viewer has no place for yet. */
  other: Envelope[];
}

export interface PendingCheckpoint {
  seq: number;
  checkpointId: string;
  kind: string;
  prompt: string;
  actions: string[];
  expiresAt: string;
  subProblemId?: string;
  round?: number;
  proposal: Data;
}

export interface Decision {
  seq: number;
  kind: string;
  action: string;
  by: string;
  text: string;
}

/**
 * A session as the viewer shows it, folded from its event log. Each seq is
 * applied once: a replay, a reconnect's overlap or a duplicate delivery
 * changes nothing, so the page shows every event exactly once.
 */
export class SessionModel {
  readonly seen = new Set<number>();
  lastSeq = 0;
  status: Status = 'queued';
  problem = '';
  context = '';
  mode = 'auto';
  provider = '';
  questions: Data[] = [];
  statement: Data | null = null;
  estimate: Data | null = null;
  members: Data[] = [];
  readonly names = new Map<string, string>();
  readonly subProblems: SubProblem[] = [];
  checkpoint: PendingCheckpoint | null = null;
  readonly decisions: Decision[] = [];
  recommendation: Data | null = null;
  usage: Data | null = null;
  ended: { type: string; reason: string; seq: number } | null = null;
  readonly other: Envelope[] = [];

  /** False when this seq was applied before. */
  apply(e: Envelope): boolean {
    if (this.seen.has(e.seq)) return false;
    this.seen.add(e.seq);
    if (e.seq > this.lastSeq) this.lastSeq = e.seq;
    if (!this.fold(e)) this.unplaced(e);
    return true;
  }

  subProblem(id: string | undefined): SubProblem | undefined {
    return this.subProblems.find((s) => s.id === id);
  }

  nameOf(code: string): string {
    return this.names.get(code) ?? code;
  }

  /** Sub-problem i of n, for headings. */
  indexOf(id: string): number {
    return this.subProblems.findIndex((s) => s.id === id) + 1;
  }

  private unplaced(e: Envelope): void {
    const sp = this.subProblem(e.data?.subProblemId);
    (sp ? sp.other : this.other).push(e);
  }

  /** Places the event; false when the viewer has no place for it (it is then listed generically). */
  private fold(e: Envelope): boolean {
    const d = e.data;
    const sp = this.subProblem(d.subProblemId);
    switch (e.type) {
      case 'session.created':
        Object.assign(this, { problem: d.problem, context: d.context ?? '', mode: d.mode, provider: d.provider });
        return true;
      case 'session.started':
        if (this.status === 'queued') this.status = 'running';
        return true;
      case 'clarification.requested':
        this.questions = d.questions ?? [];
        return true;
      case 'problem.stated':
        this.statement = d;
        return true;
      case 'cost.estimated':
        this.estimate = d;
        return true;
      case 'decomposition.completed':
        return this.decompose(d), true;
      case 'board.assembled':
        this.members = d.members ?? [];
        for (const m of this.members) this.names.set(m.code, m.name);
        for (const s of this.subProblems) s.panel = d.panels?.[s.id] ?? s.panel;
        return true;
      case 'subproblem.started': {
        const s = sp ?? this.addSubProblem(d.subProblemId, d.title, d.goal);
        Object.assign(s, { stage: 'debating', maxRounds: d.maxRounds, panel: d.panel ?? s.panel, title: d.title, goal: d.goal });
        return true;
      }
      case 'round.started':
        if (!sp) return false;
        sp.stage = 'debating';
        sp.rounds.push({ seq: e.seq, round: d.round, maxRounds: d.maxRounds, phase: d.phase, utterances: [] });
        return true;
      case 'contribution.completed':
        return this.say(sp, d.round, {
          seq: e.seq,
          kind: 'contribution',
          speaker: this.names.get(d.persona) ?? d.name,
          text: d.text,
          position: d.position,
          confidence: d.confidence,
          question: d.questionForPerson ?? null,
        });
      case 'facilitator.message':
        return this.say(sp, d.round, { seq: e.seq, kind: 'facilitator', speaker: 'Facilitator', text: d.text });
      case 'moderator.intervened':
        return this.say(sp, d.round, { seq: e.seq, kind: 'moderator', speaker: `Moderator (${d.moderator})`, text: d.text });
      case 'research.completed':
        return this.say(sp, d.round, { seq: e.seq, kind: 'research', speaker: 'Researcher (model knowledge)', text: `${d.query}\n${d.findings}` });
      case 'facts.recorded':
        return this.say(sp, d.round, {
          seq: e.seq,
          kind: 'facts',
          speaker: 'Fact ledger',
          text: (d.facts ?? []).map((f: Data) => `${f.text} (${f.kind}, ${f.source})`).join('\n'),
        });
      case 'research.declined':
        return this.say(sp, d.round, { seq: e.seq, kind: 'declined', speaker: 'Researcher', text: `Not researched: ${d.query} — ${d.reason}` });
      case 'round.completed': {
        const round = sp?.rounds.find((r) => r.round === d.round);
        if (!round) return false;
        round.metrics = d.metrics;
        round.stop = d.stop;
        return true;
      }
      case 'options.proposed':
        if (!sp) return false;
        sp.options = d;
        sp.stage = 'voting';
        return true;
      case 'vote.straw':
        if (!sp) return false;
        sp.straw.push(e);
        return true;
      case 'vote.cast':
        if (!sp) return false;
        sp.stage = 'voting';
        sp.votes.push({
          seq: e.seq,
          persona: d.persona,
          name: this.names.get(d.persona) ?? d.name,
          optionId: d.optionId,
          confidence: d.confidence,
          rationale: d.rationale,
          strongObjection: d.strongObjection ?? null,
        });
        return true;
      case 'votes.calibrated':
        if (!sp) return false;
        sp.calibrated = true;
        for (const c of d.changes ?? []) {
          const v = sp.votes.find((x) => x.persona === c.persona);
          if (v) v.calibrated = c.after;
        }
        return true;
      case 'vote.completed':
        if (!sp) return false;
        sp.tally = d.tally;
        sp.reversibility = d.reversibility;
        if (d.debateEffect) sp.debateEffect = d.debateEffect;
        return true;
      case 'synthesis.completed':
        if (!sp) return false;
        sp.synthesis = d;
        return true;
      case 'subproblem.completed':
        if (!sp) return false;
        sp.stage = 'done';
        sp.completed = d;
        return true;
      case 'subproblem.skipped': {
        const s = sp ?? this.addSubProblem(d.subProblemId, d.title, '');
        s.stage = 'skipped';
        s.skipped = d.reason;
        return true;
      }
      case 'checkpoint.requested':
        this.status = 'awaiting_input';
        this.checkpoint = { seq: e.seq, ...(d as Omit<PendingCheckpoint, 'seq'>) };
        return true;
      case 'checkpoint.resolved':
        if (this.checkpoint?.checkpointId === d.checkpointId) this.checkpoint = null;
        if (this.status === 'awaiting_input') this.status = 'running';
        this.decisions.push({ seq: e.seq, kind: d.kind, action: d.action, by: d.by, text: decisionText(d) });
        return true;
      case 'recommendation.completed':
        this.recommendation = d;
        return true;
      case 'usage.updated':
        this.usage = d;
        return true;
    }
    if (TERMINAL_EVENTS.has(e.type)) {
      this.status = e.type.slice('session.'.length) as Status;
      this.checkpoint = null;
      if (e.type === 'session.completed') this.usage = d.usage ?? this.usage;
      this.ended = { type: e.type, seq: e.seq, reason: d.reason ?? '' };
      return true;
    }
    return false;
  }

  /** A (new) decomposition: the panels follow its order; a later one (a checkpoint edit) replaces the pending ones. */
  private decompose(d: Data): void {
    const order: string[] = d.order?.length ? d.order : (d.subProblems ?? []).map((s: Data) => s.id);
    const byId = new Map<string, Data>((d.subProblems ?? []).map((s: Data) => [s.id, s]));
    const kept = this.subProblems.filter((s) => s.stage !== 'pending');
    this.subProblems.length = 0;
    this.subProblems.push(...kept);
    for (const id of order) {
      const s = byId.get(id);
      if (s && !this.subProblem(id)) this.addSubProblem(id, s.title, s.goal);
    }
  }

  private addSubProblem(id: string, title: string, goal: string): SubProblem {
    const s: SubProblem = { id, title, goal, stage: 'pending', maxRounds: 0, panel: [], rounds: [], straw: [], votes: [], calibrated: false, other: [] };
    this.subProblems.push(s);
    return s;
  }

  private say(sp: SubProblem | undefined, round: number, u: Utterance): boolean {
    const r = sp?.rounds.findLast((x) => x.round === round) ?? sp?.rounds.at(-1);
    if (!r) return false;
    r.utterances.push(u);
    return true;
  }
}

/** What the person (or the expiry) chose at a checkpoint, in a line. */
export function decisionText(d: Data): string {
  if (d.by === 'expiry') return d.action === 'cancel' ? 'Nobody answered in time: cancelled.' : 'Nobody answered in time: the board went on with its proposal.';
  switch (d.action) {
    case 'answer':
      return (d.answers ?? []).map((a: Data) => `${a.question} — ${a.answer}`).join('\n');
    case 'edit':
      if (d.statement) return `Rewrote the statement: ${d.statement}`;
      if (d.subProblems) return `Set the sub-problems: ${d.subProblems.map((s: Data) => s.title).join('; ')}`;
      return `Changed the board: ${[...(d.board?.remove ?? []).map((c: string) => `remove ${c}`), ...(d.board?.add ?? []).map((c: string) => `add ${c}`)].join(', ')}`;
    case 'intervene':
      return String(d.message ?? '');
    case 'skip_to_vote':
      return 'Move to the vote.';
    case 'skip_to_final':
      return 'Skip to the final recommendation.';
    case 'cancel':
      return 'Cancelled.';
    default:
      return 'Continue.';
  }
}
