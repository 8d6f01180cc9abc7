/**
 * Sentence banks for the simulated board. Templates use `{slot}` placeholders
 * filled by generators.ts; `{Slot}` (capitalised) inserts the value with its
 * first letter upper-cased.
 */

/** How each persona talks: what they look at, what would convince them, a recurring line. */
export interface Voice {
  lens: string;
  metric: string;
  habit: string;
  question: string;
}

export const VOICES: Record<string, Voice> = {
  technical_architect: {
    lens: 'the constraints and failure modes of the system',
    metric: 'a migration plan with a rollback at every step',
    habit: 'I always ask what breaks first and who can fix it at three in the morning.',
    question: 'which part of the current system fails first under twice today’s load',
  },
  financial_analyst: {
    lens: 'cash, runway and unit economics',
    metric: 'a payback period the runway can actually survive',
    habit: 'I want the numbers before the narrative.',
    question: 'what the cash position looks like if revenue arrives six months later than planned',
  },
  user_advocate: {
    lens: 'what customers actually do rather than what they say',
    metric: 'evidence from real customer behaviour',
    habit: 'I would rather watch five customers struggle than read fifty survey answers.',
    question: 'which customers would notice this change in their first week, and how',
  },
  risk_manager: {
    lens: 'downside scenarios and reversibility',
    metric: 'a worst case we can live through',
    habit: 'My first question is always what happens if this goes wrong.',
    question: 'what the worst credible outcome is and whether we could recover from it',
  },
  growth_strategist: {
    lens: 'market timing and acquisition channels',
    metric: 'a channel that compounds week over week',
    habit: 'Speed of learning is the only real advantage a small company has.',
    question: 'how fast we can put something real in front of buyers',
  },
  operations_expert: {
    lens: 'capacity, sequencing and execution',
    metric: 'a plan that fits the hours actually available',
    habit: 'Plans fail in the calendar long before they fail in the strategy.',
    question: 'what gets dropped from this week’s calendar to make room for it',
  },
  behavioral_psychologist: {
    lens: 'motivation, bias and how people really decide',
    metric: 'a choice the founder can sustain without burning out',
    habit: 'I watch for sunk-cost thinking and the pull of the exciting option.',
    question: 'whether this option is attractive because it is right or because it is new',
  },
  data_scientist: {
    lens: 'evidence, base rates and measurement',
    metric: 'a test with a sample large enough to mean something',
    habit: 'I do not trust a conclusion until I know how it would be measured.',
    question: 'which leading indicator would tell us within a month that this is working',
  },
  legal_advisor: {
    lens: 'contracts, liability and ownership',
    metric: 'terms that can be unwound without litigation',
    habit: 'Whatever gets signed outlives the enthusiasm that signed it.',
    question: 'what we would be bound to if this turns out to be the wrong call',
  },
};

export const DEFAULT_VOICE: Voice = {
  lens: 'the practical trade-offs',
  metric: 'clear evidence before a big commitment',
  habit: 'I try to separate what we know from what we hope.',
  question: 'what would have to be true for this to be the right call',
};

export const DEFAULT_CONCERNS = ['hidden costs', 'execution risk', 'opportunity cost'];

// ---- decomposition: one sub-problem per domain ----

/** Goal slots ({budget}, {runway}, …) are filled from facts found in the problem and context. */
export const SUBPROBLEM_TEMPLATES: Record<
  'strategy' | 'finance' | 'market' | 'technical' | 'people' | 'legal' | 'risk' | 'product' | 'operations' | 'measures',
  { title: string; goal: string; criteria: string[]; note: string }
> = {
  strategy: {
    title: 'Overall direction',
    goal: 'Decide the overall direction to commit to, and what would make you change it later.',
    criteria: ['A single direction the board can state in one sentence', 'Fits the stated resources and timeline'],
    note: 'This sets the frame the other decisions build on.',
  },
  finance: {
    title: 'Budget, runway and financial threshold',
    goal: 'Decide how much of {budget}{runway} this may consume, and the financial signal that would trigger a change of course.',
    criteria: ['Leaves a cash buffer for at least three months', 'A spending ceiling is written down'],
    note: 'Cash and runway bound every other choice.',
  },
  market: {
    title: 'Target customers and first channel',
    goal: 'Decide which customers to serve first{audience} and which channel will reach them at an acceptable acquisition cost.',
    criteria: ['A named customer segment', 'An acquisition cost the margins can carry'],
    note: 'Where demand comes from decides how fast anything else pays off.',
  },
  technical: {
    title: 'Technical approach and migration path',
    goal: 'Decide how the technical work should be approached and sequenced so the product keeps running while it changes.',
    criteria: ['No major outage during the change', 'Feature work can continue in parallel'],
    note: 'The technical path sets the cost and pace of execution.',
  },
  people: {
    title: 'Who does the work',
    goal: 'Decide who carries the work{team}, and what that costs in control, cash and focus.',
    criteria: ['Workload stays sustainable', 'Ownership and control are explicit'],
    note: 'Capacity and energy are the scarcest resources here.',
  },
  legal: {
    title: 'Legal and equity terms',
    goal: 'Decide which contractual or equity commitments are acceptable and what protection they need before anything is signed.',
    criteria: ['Terms can be unwound if the arrangement fails', 'Vesting or exit terms are agreed in writing'],
    note: 'Signed terms are the hardest part of the decision to reverse.',
  },
  risk: {
    title: 'Downside protection',
    goal: 'Decide what the worst credible outcome is and which safeguards must be in place before committing.',
    criteria: ['The worst case is survivable', 'A stop trigger is defined in advance'],
    note: 'The downside decides how much can be risked on the upside.',
  },
  product: {
    title: 'Product scope for the next release',
    goal: 'Decide what the product must include, and leave out, to prove the chosen direction quickly.',
    criteria: ['A scope that ships within the timeline', 'Customers can see the difference'],
    note: 'Scope turns the direction into something customers can judge.',
  },
  operations: {
    title: 'Execution capacity and milestones',
    goal: 'Decide how the work fits into {hours} and which milestones show it is on track.',
    criteria: ['A weekly plan that fits the available hours', 'Milestones with dates'],
    note: 'Execution capacity is where plans usually break.',
  },
  measures: {
    title: 'Success measures and checkpoints',
    goal: 'Decide which measurable signals, and by when, will show the decision was right or needs revisiting.',
    criteria: ['One leading indicator per decision', 'A review date on the calendar'],
    note: 'Without agreed signals the decision cannot be reviewed honestly.',
  },
};

// ---- opening statements (round 1) ----

export const OPENING_LEANS = [
  'Of the paths on the table, my early lean is towards "{Alt}", though I hold that loosely.',
  'If I had to choose today, I would pick "{Alt}", but I want to hear the others first.',
];

export const OPENING_INTROS = [
  'I come at {focus} through the lens of {lens}.',
  'My starting point on {focus} is {lens}, because that is where I have seen these decisions won or lost.',
  'Looking at {focus}, I keep my attention on {lens}.',
];

export const STANCE_SENTENCES: Record<'low' | 'medium' | 'high', string[]> = {
  low: [
    'My instinct is a cautious, staged path: take the smallest step that teaches us something and keep every option open until the evidence is in.',
    'I would move carefully here, in stages, and commit nothing we cannot undo until the first results are in.',
  ],
  medium: [
    'I lean towards a time-boxed pilot: commit a fixed slice of time and money, then decide with real data rather than opinions.',
    'I favour a bounded experiment with a clear end date, after which we either scale it or stop without regret.',
  ],
  high: [
    'I would commit quickly and decisively, because the bigger risk here is moving too slowly while the window is open.',
    'My view is that we should pick a direction now and put real weight behind it; half-measures rarely teach anything.',
  ],
};

export const OPTIMISM_SENTENCES: Record<'skeptical' | 'balanced' | 'optimistic', string> = {
  skeptical: 'I am sceptical of the upside estimates that usually accompany decisions like this, and I would discount them heavily.',
  balanced: 'The upside is real, but so is the downside, and I want both written down before we choose.',
  optimistic: 'I genuinely think there is a good outcome available here if the effort stays focused.',
};

export const CONCERN_SENTENCES = [
  'My first concern is {concern}: it is easy to underestimate and expensive to discover late.',
  'I am also watching {concern2}, because it tends to surface only once the commitment is made.',
];

export const PADDING = [
  'I am open to being persuaded, but by evidence rather than enthusiasm.',
  'Whatever we choose, I want a date on the calendar when we look at this again.',
  'I would like us to separate what we know from what we are hoping for.',
  'I will keep this short so the others can weigh in.',
  'None of this is a reason to freeze; it is a reason to be deliberate.',
  'The person making this decision has limited time, so clarity matters more than completeness.',
];

// ---- later contributions (round 2+) ----

/** Recurring talking points; each persona draws a small fixed set of these for the whole debate. */
export const CORE_TEMPLATES = [
  '{habit}',
  'Everything on {focus} comes back to {lens} for me.',
  'Until I see {metric}, I keep coming back to {concern}.',
  '{Concern} is still the risk I would put at the top of the list.',
  'My test stays the same: {metric}, or we do not scale it up.',
  'We should not lose sight of {concern2} while we argue about {focus}.',
  'I would still write down the trigger that makes us stop, because {concern} does not announce itself.',
  'Again, the deciding factor on {focus} is {lens}.',
];

/** Fresh material: challenges, concessions, evidence and questions. */
export const FRESH_TEMPLATES = [
  'I want to challenge the assumption that {focus} can be settled before anyone has looked hard at {concern}.',
  'Several arguments so far treat speed as free; it is not, and the bill usually arrives as {concern2}.',
  'I disagree with the optimistic reading: nobody has shown evidence that the upside materialises within the timeline.',
  'The last proposal quietly assumes unlimited attention, and a small team simply does not have that.',
  'What worries me about the bolder proposal is that it removes every exit before we have learned anything.',
  'I would push back on treating {concern2} as a detail; in my experience it decides outcomes like this.',
  'I will concede the point about momentum: waiting indefinitely has its own cost.',
  'Fair challenge to my earlier view; a narrower first step would answer most of my objection.',
  'I accept that caution could become an excuse, so let me name the condition under which I would move.',
  'The argument about learning speed is stronger than I first credited.',
  'I can support a smaller commitment if it comes with an explicit review date.',
  'One fact worth adding: comparable teams usually underestimate this kind of work by a factor of two.',
  'From what I have seen, the first ninety days reveal most of what matters, which argues for a checkpoint there.',
  'A useful data point would be how many existing customers would notice the change at all.',
  'Historically, decisions like this go wrong through slow drift rather than one dramatic failure.',
  'The cheapest evidence available is a short experiment with a predefined success threshold.',
  'What would have to be true in three months for us to call this a mistake?',
  'Who exactly carries the extra load if this takes longer than planned?',
  'Can anyone name the single number that would change their mind?',
  'Building on the point about {concern}, I would add a concrete spending ceiling.',
  'I agree with the direction of the discussion, but the sequencing still matters.',
  'The disagreement is narrower than it looks: we mostly differ on timing, not substance.',
  'Nobody has priced the distraction cost yet, and for a founder that cost is real.',
  'If we are wrong, I would rather be wrong cheaply and early than expensively and late.',
];

export const RESPONSE_LEADS = [
  'Last round I argued: {previous}.',
  'Responding to the others, I will hold my earlier line: {previous}.',
  'To recap where I stood: {previous}.',
];

/** Late rounds sound like this: little new, mostly restating. */
export const LATE_LEADS = [
  'I think the main points are on the table now.',
  'At this stage I am mostly repeating myself, so briefly.',
  'I have little new to add beyond what I said before.',
];

export const CONVERGE_SENTENCES = ['I can support where the board is landing: {common}.', 'I am moving towards the shared view: {common}.'];
export const HOLDOUT_SENTENCES = ['I still do not share the emerging consensus, and I want that on the record.'];

export const OWN_STANCES: Record<'low' | 'medium' | 'high', string> = {
  low: 'Stage {focus} and commit nothing irreversible without {metric}',
  medium: 'Pilot {focus} for a fixed window and judge it on {metric}',
  high: 'Commit to {focus} now and insist on {metric}',
};

/** Where debates drift: the same line for every persona on a sub-problem. */
export const COMMON_STANCES = [
  'time-box a pilot on {focus} with a go/no-go checkpoint before any one-way commitment',
  'take a reversible first step on {focus} and review the evidence at a fixed checkpoint',
  'start {focus} small, measure it against agreed criteria, then commit or stop',
];

// ---- options ----

export type OptionKind = 'bold' | 'pilot' | 'cautious';

export const OPTION_ARCHETYPES: Record<
  OptionKind,
  { title: string; description: string; pros: string[]; cons: string[]; bestIf: string }
> = {
  bold: {
    title: 'Commit now to {focus}',
    description: 'Settle {focus} now and put the full resources behind it. Fastest route to the goal, with no built-in exit.',
    pros: ['Fastest route to a result', 'Clear focus for the whole team', 'Captures the window before competitors move'],
    cons: ['Hard to reverse once money and time are spent', 'Little evidence gathered before committing', 'Concentrates risk in one bet'],
    bestIf: 'The evidence is already strong and waiting carries a real cost',
  },
  pilot: {
    title: 'Pilot {focus} first',
    description: 'Run a time-boxed pilot on {focus} with a predefined success threshold, then commit or stop.',
    pros: ['Real evidence at a bounded cost', 'Keeps the option to scale up or walk away', 'Forces an explicit success criterion'],
    cons: ['Slower than committing outright', 'A small pilot can give a misleading signal', 'Needs discipline to stop if it fails'],
    bestIf: 'The main uncertainty can be tested cheaply within a few weeks',
  },
  cautious: {
    title: 'Stage {focus} gradually',
    description: 'Keep the current course while preparing {focus} in reversible stages, each gated by a checkpoint.',
    pros: ['Protects cash and current customers', 'Every stage can be undone', 'Leaves time to gather evidence'],
    cons: ['Risks losing momentum', 'Competitors may move first', 'Can drift into never deciding'],
    bestIf: 'Runway is tight or the downside of a wrong move is severe',
  },
};

export const ALTERNATIVE_DESCRIPTIONS = [
  'It is the natural choice if it fits the resources and timeline you described.',
  'The board would judge it on how quickly it produces evidence that it is working.',
  'It asks for a clear commitment of time and money before its results are visible.',
];

export const ALTERNATIVE_PROS = [
  'Answers the question directly with a concrete path',
  'Plays to the strengths already available',
  'Produces a visible result within the timeline',
  'Keeps the plan simple enough to execute alone',
];

export const ALTERNATIVE_CONS = [
  'Its cost and time are easy to underestimate',
  'Depends on assumptions nobody has tested yet',
  'Narrows what can be tried next',
  'Adds load to an already stretched schedule',
];

export const ALTERNATIVE_BEST_IF = [
  'Early evidence supports it and the budget can absorb a slow start',
  'It matches the skills already on hand',
  'Speed matters more than keeping every option open',
];

// ---- votes ----

export const VOTE_REASONS: Record<OptionKind | 'neutral', string[]> = {
  bold: [
    'It commits decisively, and I think the cost of hesitating is higher than the cost of a wrong turn we can correct.',
    'It puts real weight behind one direction, which is how a small company actually learns.',
  ],
  pilot: [
    'It buys real evidence at a bounded cost, and it keeps the choice to scale up or stop in our hands.',
    'A time-boxed test answers the open question faster than any further debate would.',
  ],
  cautious: [
    'It protects what already works and keeps every step reversible while the evidence comes in.',
    'It keeps cash and attention safe until the evidence justifies a bigger move.',
  ],
  neutral: [
    'On balance it fits the goal best with the resources actually available.',
    'It plays to the strengths already on hand and has the clearest path to a first result.',
    'Of the paths on the table it has the most favourable mix of upside and recoverable downside.',
  ],
};

export const VOTE_CLOSERS = [
  'I would revisit this vote if the first checkpoint shows the opposite of what we expect.',
  'My confidence is moderate; the others raised points I take seriously.',
  'I would want the success threshold written down before any money is spent.',
  'If the numbers move against it, I would switch without hesitation.',
];

// ---- synthesis and final recommendation ----

export const SYNTHESIS_CAVEATS = [
  'This rests on assumptions about time and budget that should be checked at the first review.',
  'The vote reflects the board’s reading of the context given; new facts could change it.',
  'Set an explicit checkpoint so the decision is revisited rather than drifting.',
];

export const FINAL_STEPS = [
  'Write down the success threshold and the date of the first review before starting.',
  'Review progress at the first checkpoint and decide to continue, adjust or stop.',
  'Share the plan with one trusted advisor or customer and ask what would make it fail.',
  'Keep a simple weekly log of the key metric so the review rests on evidence.',
];

export const FINAL_TRADEOFFS = [
  'Speed versus evidence: moving in stages costs some momentum but avoids an expensive wrong turn.',
  'Focus versus optionality: committing concentrates effort but narrows what can be tried next.',
  'Cash versus time: saving money often means spending more of the founder’s own hours.',
];

export const PLAIN_SENTENCES = [
  'This is a simulated answer produced without calling a model.',
  'It is deterministic, so the same request always yields the same text.',
  'The content is illustrative rather than an actual analysis.',
  'Treat it as a placeholder that exercises the rest of the pipeline.',
  'A real model would weigh the specifics of the request in more depth.',
];
