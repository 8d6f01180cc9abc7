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
export type TemplateName =
  | 'strategy'
  | 'finance'
  | 'pricing'
  | 'market'
  | 'technical'
  | 'people'
  | 'legal'
  | 'risk'
  | 'product'
  | 'operations'
  | 'measures';

type DomainName = 'strategy' | 'finance' | 'market' | 'product' | 'technical' | 'operations' | 'risk' | 'people' | 'legal';

/** Each template's `domains` differ from every other's, so each sub-problem draws its own experts. */
export const SUBPROBLEM_TEMPLATES: Record<TemplateName, { title: string; goal: string; criteria: string[]; note: string; domains: DomainName[] }> = {
  strategy: {
    title: 'Overall direction',
    goal: 'Decide the overall direction to commit to, and what would make you change it later.',
    criteria: ['A single direction the board can state in one sentence', 'Fits the stated resources and timeline'],
    note: 'This sets the frame the other decisions build on.',
    domains: ['strategy'],
  },
  finance: {
    title: 'Budget, runway and financial threshold',
    goal: 'Decide how much of {budget}{runway} this may consume, and the financial signal that would trigger a change of course.',
    criteria: ['Leaves a cash buffer for at least three months', 'A spending ceiling is written down'],
    note: 'Cash and runway bound every other choice.',
    domains: ['finance', 'risk'],
  },
  pricing: {
    title: 'Pricing and monetisation model',
    goal: 'Decide how to charge for the product{audience} so that revenue arrives before the cash runs out.',
    criteria: ['A price point tested with real buyers', 'Margins that cover acquisition cost'],
    note: 'Price decides both revenue and who signs up.',
    domains: ['finance', 'market', 'product'],
  },
  market: {
    title: 'Target customers and first channel',
    goal: 'Decide which customers to serve first{audience} and which channel will reach them at an acceptable cost per customer.',
    criteria: ['A named customer segment', 'A cost per customer the margins can carry'],
    note: 'Where demand comes from decides how fast anything else pays off.',
    domains: ['market', 'strategy'],
  },
  technical: {
    title: 'Technical approach and change path',
    goal: 'Decide how the technical work should be approached and sequenced so the product keeps running while it changes.',
    criteria: ['No major outage during the change', 'Feature work can continue in parallel'],
    note: 'The technical path sets the cost and pace of execution.',
    domains: ['technical', 'operations'],
  },
  people: {
    title: 'Staffing and ownership of the work',
    goal: 'Decide who carries the work{team}, and what that costs in control, cash and focus.',
    criteria: ['Workload stays sustainable', 'Ownership and control are explicit'],
    note: 'Capacity and energy are the scarcest resources here.',
    domains: ['people', 'finance'],
  },
  legal: {
    title: 'Legal and equity terms',
    goal: 'Decide which contractual or equity commitments are acceptable and what protection they need before anything is agreed.',
    criteria: ['Terms can be unwound if the arrangement fails', 'Vesting or exit terms are agreed in writing'],
    note: 'Agreed terms are the hardest part of the decision to reverse.',
    domains: ['legal', 'risk'],
  },
  risk: {
    title: 'Downside protection',
    goal: 'Decide what the worst credible outcome is and which safeguards must be in place before committing.',
    criteria: ['The worst case is survivable', 'A stop trigger is defined in advance'],
    note: 'The downside decides how much can be risked on the upside.',
    domains: ['risk', 'strategy'],
  },
  product: {
    title: 'Product scope for the next release',
    goal: 'Decide what the product must include, and leave out, to prove the chosen direction quickly.',
    criteria: ['A scope that ships within the timeline', 'Customers can see the difference'],
    note: 'Scope turns the direction into something customers can judge.',
    domains: ['product', 'technical'],
  },
  operations: {
    title: 'Execution capacity and milestones',
    goal: 'Decide how the work fits into {hours} and which milestones show it is on track.',
    criteria: ['A weekly plan that fits the available hours', 'Milestones with dates'],
    note: 'Execution capacity is where plans usually break.',
    domains: ['operations', 'people'],
  },
  measures: {
    title: 'Success measures and checkpoints',
    goal: 'Decide which measurable signals, and by when, will show the decision was right or needs revisiting.',
    criteria: ['One leading indicator per decision', 'A review date on the calendar'],
    note: 'Without agreed signals the decision cannot be reviewed honestly.',
    domains: ['product', 'finance'],
  },
};

/** The single high-level sub-problem of a problem too vague to split. */
export const VAGUE_SUBPROBLEM = {
  title: 'Define success and the first concrete step',
  goal: 'Decide what success concretely means for you over the next six months, and the first step that tests whether you are heading there.',
  criteria: ['Success is stated as something measurable', 'A first step that fits in a month'],
  note: 'The question is broad, so the board first pins down what would count as success.',
};

/** Phrases for the hard-to-reverse words the decomposer flags in a sub-problem's goal. */
export const IRREVERSIBLE_PHRASES: [RegExp, string][] = [
  [/co-?founder/i, 'Bringing on a co-founder'],
  [/equity/i, 'Giving up equity'],
  [/\bhir(?:e|es|ing)\b/i, 'A hire'],
  [/rewrit/i, 'A rewrite'],
  [/migrat/i, 'A migration'],
  [/pivot/i, 'A pivot'],
  [/\binvest/i, 'The investment'],
  [/\bsign(?:s|ed|ing)?\b|contract/i, 'Signing a contract'],
  [/\bquit\b/i, 'Quitting'],
  [/\bsell (?:the|my|our) (?:company|business|startup)/i, 'Selling the company'],
];

/** Blocking questions for thin context, by the fact that is missing. */
export const CLARIFICATIONS: Record<'budget' | 'time' | 'team' | 'goal' | 'audience' | 'naming', { question: string; why: string; assumption: string }> = {
  budget: {
    question: 'How much money can you put into this without putting the business at risk?',
    why: 'The budget decides whether the bolder options are realistic at all.',
    assumption: 'A modest budget of a few thousand dollars and no outside funding.',
  },
  time: {
    question: 'By when do you need results, or a decision?',
    why: 'A short deadline favours fast, reversible moves over long bets.',
    assumption: 'A horizon of about six months, with a first review after six weeks.',
  },
  team: {
    question: 'Are you doing this alone, or is there a team or partner who shares the work?',
    why: 'Who carries the work changes which options are feasible.',
    assumption: 'You work on this alone, alongside your other commitments.',
  },
  goal: {
    question: 'What outcome would make this a success for you, in numbers if possible?',
    why: 'Without a success measure the board cannot compare the options fairly.',
    assumption: 'Success means steady revenue growth without risking what already works.',
  },
  audience: {
    question: 'Who are your current customers or users, and roughly how many are there?',
    why: 'Existing customers decide how much a change can cost you.',
    assumption: 'A small base of early customers whose goodwill matters.',
  },
  naming: {
    question: 'Is either name already trademarked or used by a competitor in your market?',
    why: 'A trademark conflict would rule an option out regardless of preference.',
    assumption: 'Both names are legally available and their domains can be bought.',
  },
};

/** Requests the board must not deliberate, with the reason given; a backstop for what a pre-screen misses. */
export const HARMFUL_REQUESTS: [RegExp, string][] = [
  [
    /\b(?:spread(?:ing)?|start(?:ing)?|plant(?:ing)?)\b[^.?!]{0,40}\brumou?rs?\b|\brumou?rs? about\b|\bdefam|\bslander|\blibel|\bsmear(?:ing)?\b/i,
    'Spreading rumours about or defaming others is harmful and may be unlawful; the board will not help plan it',
  ],
  [/\bsabotag/i, 'Sabotaging another person or business causes deliberate harm; the board will not help plan it'],
  [/\bbrib(?:e|es|ing|ery)\b|\bkickbacks?\b|\bpay off (?:an? |the )?(?:official|inspector|regulator)/i, 'Bribing an official is illegal; the board will not deliberate it'],
  [
    /\b(?:deceiv\w*|mislead\w*|lie to|lying to)\b[^.?!]{0,60}\b(?:safety|customers|buyers|users|regulators?|investors|the public)\b/i,
    'Deceiving customers, investors or regulators is harmful and unlawful; the board will not help with it',
  ],
  [
    /\btell (?:customers|buyers|users|the public)\b[^.?!]{0,60}\bsafe\b[^.?!]{0,60}\b(?:even though|although|but|despite)\b/i,
    'Telling customers a product is safe against the evidence endangers them and is unlawful; the board will not help with it',
  ],
  [
    /\b(?:hid(?:e|ing)|conceal\w*|cover(?:ing)? up|downplay\w*)\b[^.?!]{0,60}\b(?:safety|defects?|recall|hazards?|injur\w*|contamina\w*)/i,
    'Hiding a safety problem from the people it affects is harmful and unlawful; the board will not help with it',
  ],
  [/\bfake (?:reviews?|testimonials?)\b|\bastroturf/i, 'Fabricating reviews deceives customers and breaks consumer-protection law; the board will not help with it'],
  [/\b(?:launder\w*|money laundering|evade (?:the )?taxe?s?|tax evasion|embezzl\w*|ponzi|insider trading|price[- ]fixing)\b/i, 'This describes a financial crime; the board will not deliberate it'],
  [
    /\b(?:blackmail\w*|extort\w*|harass\w*|dox(?:x)?(?:ing)?|intimidat\w*)\b|\bthreaten(?:ing)? (?:him|her|them|my|an?|the) (?:employee|former|ex|competitor|partner|co-?founder|customer|journalist|reviewer)/i,
    'Intimidating or harassing someone is harmful; the board will not help plan it',
  ],
  [/\b(?:hack into|steal|stealing)\b[^.?!]{0,40}\b(?:data|accounts?|trade secrets?|customer list|database|passwords?)\b/i, 'Taking data or secrets without permission is unlawful; the board will not help plan it'],
];

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

/** Converging without restating the shared line word for word each time. */
export const CONVERGE_SENTENCES = [
  'I can support where the board is landing, provided we keep {metric} in sight.',
  'I am moving towards the shared view; my condition is still {metric}.',
  'I can live with the emerging consensus, as long as {concern} stays on the checklist.',
  'On balance I am now with the majority here.',
];
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

// ---- the fuller debate: camps, responses, claims, research ----

/** A polarised board splits into two camps that hold these lines round after round. */
export const CAMP_STANCES: Record<'commit' | 'hold', string> = {
  commit: 'Commit to {focus} now; the cost of waiting is higher than the cost of a wrong turn',
  hold: 'Do not commit to {focus} until {metric} is in hand',
};

/** Entrenched lines: a persona in a polarised debate restating why the other camp is wrong. */
export const CAMP_LINES: Record<'commit' | 'hold', string[]> = {
  commit: [
    'I still disagree with {names}: every month spent gathering more evidence is a month the window narrows.',
    'I cannot accept the position {names} keep defending; caution here is itself a decision, and an expensive one.',
    'With respect to {names}, more analysis will not change the picture, only delay it.',
  ],
  hold: [
    'I still disagree with {names}: committing before we have evidence turns a recoverable question into an irreversible one.',
    'I cannot accept the position {names} keep defending; speed is not a reason to bet what cannot be replaced.',
    'With respect to {names}, enthusiasm is not evidence, and nothing said so far changes the downside.',
  ],
};

export const AGREE_LINES = [
  'I agree with {name} on {stance}.',
  'I am with {name} here: {stance} is the sensible course.',
  'Building on what {name} said, {stance} answers most of my worry about {concern}.',
];

export const DISAGREE_LINES = [
  'I disagree with {name}’s case for {stance}; it underrates {concern}.',
  'Where I part ways with {name} is {stance}: it does too little about {concern}.',
  '{Name} argues for {stance}, and I think that leaves {concern} unaddressed.',
];

/** How one expert names another's stance, by its kind. */
export const STANCE_NAMES: Record<'common' | 'commit' | 'hold' | 'pilot' | 'stage', string> = {
  common: 'the shared checkpoint approach',
  commit: 'committing straight away',
  hold: 'holding off until the evidence is in',
  pilot: 'a time-boxed pilot',
  stage: 'a staged, reversible approach',
};

/** A persona's reply to a moderator who has just intervened. */
export const MODERATOR_REPLIES: Record<'contrarian' | 'skeptic' | 'optimist' | 'deadlock', string[]> = {
  contrarian: [
    'The contrarian challenge is fair: we agreed quickly, and I should test my own view against {concern}.',
    'Taking the devil’s advocate point seriously, our easy agreement may be hiding {concern}.',
  ],
  skeptic: [
    'On the request for evidence: my point rests on experience rather than data, and I will mark it that way.',
    'The sceptic is right to ask what my claim rests on; I would rather test it than assert it.',
  ],
  optimist: [
    'The reframe helps: there is a version of {focus} that could work if the first step stays small.',
    'I accept the more hopeful framing; the downside is real but not the whole picture.',
  ],
  deadlock: [
    'To break the deadlock, I can accept the facilitator’s proposal: {common}.',
    'I will meet the others on the facilitator’s proposal rather than hold out: {common}.',
  ],
};

export const DEADLOCK_REFUSALS = ['I hear the facilitator’s proposal, but I cannot yet accept it without {metric}.'];

export const QUESTION_LEADS = ['On the facilitator’s question:', 'To answer the question put to us:', 'As for what would change my mind:'];

export const QUESTION_ANSWERS = [
  'my answer is {metric}; without it I would not move.',
  'honestly, it turns on {concern}, and that is where I would look first.',
  'I would answer through {lens}, which is what decides it for me.',
  'show me {metric} and I would reconsider.',
];

export const RESEARCH_CITES = [
  'The research on "{query}" matters here: {finding}',
  'The research we asked for adds something: {finding}',
];

export const REDIRECT_LEADS = ['Bringing this back to the goal, {goal}.', 'Returning to what we must decide: {goal}.'];

/** Off-topic remarks that make a round drift (the facilitator then scores relevance low). */
export const DRIFT_TANGENTS = [
  'Stepping back, I keep thinking about where the whole industry will be in ten years and whether any of this will matter.',
  'This reminds me of a broader question about personal brand, conference talks and whether to write a book one day.',
  'On a side note, the office setup and which project tool the team uses deserve a debate of their own.',
];

export const RESEARCH_REQUEST_LEADS = ['I would need research on this before deciding: {question}', 'Before I commit, I want research on one point: {question}'];

/** Claims an expert makes, by what they rest on. */
export const CLAIMS: Record<'evidence' | 'experience' | 'assumption', string[]> = {
  evidence: [
    'Comparable small software companies report that most churn happens in the first ninety days.',
    'Published benchmarks put free-to-paid conversion for small-business tools at a few percent.',
    'Post-mortems of rewrites consistently show timelines doubling against the first estimate.',
  ],
  experience: [
    'Teams of this size usually underestimate the effort of {focus} by about half.',
    'In my experience the first checkpoint reveals most of what matters about {focus}.',
    'I have seen founders lose momentum when {focus} stays undecided for more than a quarter.',
  ],
  assumption: [
    'Customers will tolerate a few weeks of disruption while {focus} changes.',
    'The current revenue holds steady while {focus} is being settled.',
    'A competitor will move within six months if we do not.',
    'The founder can find the extra hours that {focus} needs.',
  ],
};

/** Research questions by topic (matched against the sub-problem) and, failing that, by persona. */
export const TOPIC_RESEARCH: [RegExp, string[]][] = [
  [/law[- ]?firm|legal (?:market|customers)/i, ['What churn do law-firm customers typically show in year one?', 'How long is a typical sales cycle for software sold to small law firms?']],
  [/agenc/i, ['How stable is demand from small agencies for project tools over a two-year period?']],
  [/pric|tier|monetis|monetiz|free plan|\/month/i, ['What free-to-paid conversion do small-business SaaS tools typically see after introducing a first paid tier?', 'How much do price increases of 2-3x typically affect churn among existing small-business customers?']],
  [/\bseo\b|content|blog/i, ['How long does SEO content typically take to produce meaningful traffic for a new B2B site?']],
  [/\bads\b|paid|acquisition|channel|cac\b/i, ['What customer acquisition cost do small SaaS products typically see on paid search?', 'Which acquisition channels typically reach the first hundred paying customers for a bootstrapped SaaS?']],
  [/co-?founder|equity|vesting/i, ['What vesting and cliff terms are standard for a co-founder joining an existing company?', 'How often do late-joining co-founder arrangements break up within two years?']],
  [/\bhire|salesperson|contractor|freelanc/i, ['How long does a first sales hire at a small SaaS company typically take to become productive?', 'What share of outsourced refactoring projects finish on time and on budget?']],
  [/rewrit|migrat|refactor|architect|rust|python|scal/i, ['How long do incremental rewrites of a production application typically take compared with the estimate?', 'At what load do single-node PostgreSQL setups typically need re-architecting?']],
  [/runway|budget|cash|burn|invest/i, ['How much do solo-founder SaaS businesses typically spend before reaching $5K MRR?']],
];

export const PERSONA_RESEARCH: Record<string, string> = {
  technical_architect: 'How long do comparable teams take to finish {focus} compared with their estimate?',
  financial_analyst: 'What payback period on acquisition spend do bootstrapped SaaS companies typically need to stay solvent?',
  user_advocate: 'What churn do small-business software customers typically show in their first year?',
  risk_manager: 'How often do projects like {focus} overrun their budget or timeline, and by how much?',
  growth_strategist: 'Which acquisition channels typically produce the first hundred paying customers for a small SaaS?',
  operations_expert: 'How many hours a week does a solo founder typically spend on support at a few hundred customers?',
  behavioral_psychologist: 'How do founders’ risk decisions typically change after a first failed startup?',
  data_scientist: 'What sample size does a conversion test need to detect a two-point difference with confidence?',
  legal_advisor: 'What contract terms are standard for arrangements like {focus} at small companies?',
};

export const DEFAULT_RESEARCH = 'What do comparable small companies typically experience when they change {focus}?';

// ---- facilitator ----

export const FACILITATOR_QUESTIONS = [
  'What evidence would settle {focus} within the next month?',
  'Which option serves the goal best if the timeline slips by half?',
  'What is the cheapest step that would tell us whether we are right about {focus}?',
  'Which assumption about {focus}, if wrong, would hurt the most?',
];

export const FACILITATOR_LATE_QUESTIONS = [
  'What is the strongest remaining objection, and what would answer it?',
  'Can everyone live with the emerging position on {focus}, and if not, what exactly blocks you?',
];

export const FACILITATOR_DRIFT_NOTES = [
  'Parts of the round drifted away from the goal, so the next round should return to it.',
  'Some of the discussion wandered off the sub-problem; the board needs to refocus on the goal.',
];

// ---- moderators ----

export const MODERATOR_TEXTS: Record<'contrarian' | 'skeptic' | 'optimist', { open: string[]; body: string[]; close: string[] }> = {
  contrarian: {
    open: ['Let me play devil’s advocate, because this board agreed on {focus} suspiciously fast.', 'I am going to argue the other side, since nobody else is.'],
    body: [
      '{Names} all landed on roughly the same line, and agreement this early usually means an alternative was never examined.',
      'What if the option nobody is defending is actually the right one? Someone should make its best case.',
      'Consensus feels safe, but it can hide the one assumption everyone shares and nobody has tested.',
      'I would ask each of you to name the strongest argument against your own position before we go on.',
    ],
    close: ['If the agreement survives that test, it is worth much more.', 'Disagree with me, but do it with reasons, not politeness.'],
  },
  skeptic: {
    open: ['I want to press on the evidence behind what has been said about {focus}.', 'Several claims in this debate rest on assumptions, and I want them tested.'],
    body: [
      '{Names} made claims that sound plausible but rest on assumption rather than data.',
      'Which of these numbers comes from an actual source, and which from a feeling?',
      'An untested assumption repeated three times starts to sound like a fact; it is not one.',
      'I would like each claim labelled: measured, experienced, or assumed.',
    ],
    close: ['Where the evidence is missing, let us say so plainly and design the cheapest test to get it.', 'Until then, I would weigh the assumed claims at half their stated strength.'],
  },
  optimist: {
    open: ['The mood has turned heavy, so let me reframe what could go right with {focus}.', 'I want to look at the upside, because this board has spent a long time on what could fail.'],
    body: [
      '{Names} have listed real risks, but every one of them can be bounded with a small first step.',
      'The resources described are modest, yet they are enough for a focused test that teaches a lot.',
      'Most of the downside discussed is recoverable, which means the real risk is doing nothing.',
      'Founders in similar positions have succeeded by narrowing the first move rather than abandoning it.',
    ],
    close: ['Let us ask what would have to be true for this to work, and test exactly that.', 'Caution is useful, but it should shape the plan, not stop it.'],
  },
};

export const DEADLOCK_TEXTS = {
  open: ['This debate is deadlocked: {names} have held opposite positions for several rounds without moving.', 'We are going in circles: the same two camps, the same arguments, round after round.'],
  acknowledge: ['Both sides have a point: one is protecting against an irreversible mistake, the other against the cost of delay.', 'The disagreement is about values as much as facts: speed against safety.'],
  ways: {
    pilot: 'I propose a way through: a reversible pilot on {focus}, time-boxed to six weeks, with the success threshold agreed now, so the commitment waits for evidence but not forever.',
    criterion: 'I propose a decision criterion instead of more argument: if the agreed leading indicator on {focus} is met by the checkpoint, we commit; if not, we stop, and everyone accepts that rule now.',
    split: 'I propose splitting the difference: commit a limited part of the resources to {focus} now and hold the rest until the first results are in.',
  },
  close: ['Can each of you accept that, even if it is not your first choice?', 'If anyone cannot accept it, we will move to a vote and record the dissent.'],
};

// ---- research (v1: general model knowledge, no live source) ----

export const RESEARCH_PREFIX = 'Based on general knowledge (not a live source):';

/** Findings by topic; the first topic whose pattern matches the query wins, so the specific ones come first. */
export const RESEARCH_FINDINGS: [RegExp, string[]][] = [
  [/sales cycle|buying process|procurement/i, [
    'sales cycles for software sold to small professional firms commonly run from a few weeks to a few months, with a partner or owner as the final decision maker.',
    'referrals and peer recommendations tend to shorten these cycles markedly compared with cold outreach.',
  ]],
  [/churn|retention|retain/i, [
    'small-business software customers commonly churn at 3-7% a month, and the first ninety days account for a large share of it.',
    'vertical niches such as professional services often retain better than horizontal tools, because switching costs and workflow fit are higher.',
  ]],
  [/pric|tier|conversion|free|paid plan|monetis|monetiz/i, [
    'free-to-paid conversion for self-serve tools is usually in the low single digits, often 2-5% of active users.',
    'moderate price increases tend to cost fewer customers than founders expect, while a first paywall shakes out users who were never going to pay.',
  ]],
  [/\bseo\b|content|blog|traffic/i, [
    'new sites typically need six to twelve months before content ranks well enough to drive steady traffic.',
    'results compound slowly and depend heavily on consistent publishing, which is hard to sustain part-time.',
  ]],
  [/\bads\b|paid search|acquisition|\bcac\b|channel|first hundred/i, [
    'paid search for niche B2B software often costs tens to a few hundred dollars per trial, and early campaigns usually need weeks of tuning.',
    'most bootstrapped products find their first hundred customers through founder-led sales and communities rather than ads.',
  ]],
  [/co-?founder|equity|vesting|partner/i, [
    'four-year vesting with a one-year cliff is the common default, and it exists precisely because many co-founder arrangements end early.',
    'late-joining co-founders usually receive less equity than founding ones, with the share tied to the value already built.',
  ]],
  [/\bhire|sales|contractor|freelanc|outsourc|productive/i, [
    'a first sales hire commonly needs three to six months to become productive, and many early sales hires do not work out.',
    'outsourced technical work tends to overrun when the scope is unclear or the original author is unavailable to answer questions.',
  ]],
  [/rewrit|migrat|refactor|architect|postgres|rust|python|scal|estimate|overrun/i, [
    'large rewrites and projects of this kind very often take twice the original estimate, and incremental replacement usually carries less risk than a big-bang switch.',
    'most scaling problems at this size come from a few hot paths or queries rather than from the language or architecture as a whole.',
  ]],
  [/runway|budget|cash|burn|spend|invest|payback|mrr|solvent/i, [
    'bootstrapped SaaS businesses often take one to two years to reach a few thousand dollars of monthly revenue, and runway is usually the binding constraint.',
    'a payback period on acquisition spend under twelve months is a common rule of thumb for staying solvent without outside funding.',
  ]],
  [/law[- ]?firm|agenc|niche|vertical|segment/i, [
    'focusing on one vertical usually raises willingness to pay and retention, at the cost of a smaller total market.',
    'fast-growing segments such as agencies also tend to be price-sensitive and quick to switch tools.',
  ]],
  [/sample size|statistic|test|experiment|measure/i, [
    'detecting a difference of a couple of percentage points in conversion typically needs thousands of visitors per variant, more than most small products have.',
    'with small samples, qualitative signals and a few strong leading indicators are usually more informative than a formal A/B test.',
  ]],
];

export const RESEARCH_GENERAL = [
  'outcomes for small companies facing this kind of decision vary widely, and the spread matters more than the average.',
  'decisions like this usually go wrong through slow drift rather than a single dramatic failure.',
];

export const RESEARCH_CAVEATS = [
  'These are rough base rates from general knowledge, not figures for this market, and they should be checked against real data.',
  'Treat these numbers as orientation only; a live source or the founder’s own data would be more reliable.',
];

// ---- calibration, objections, deferral, conflicts ----

export const CALIBRATION_REASONS = {
  majority: ['Most of the board reached the same choice independently, which strengthens my confidence.', 'The group’s votes line up with mine, so I keep my confidence or raise it slightly.'],
  tied: ['The board is evenly split, so I hold my confidence where it was.', 'An even split tells me the arguments are balanced; I keep my confidence unchanged.'],
  outlier: ['I am in the minority, so I lower my confidence: the others may see something I am missing.', 'Most of the board chose differently; I still hold my view, but with less certainty.'],
};

export const STRONG_OBJECTIONS = {
  oneWay: 'I strongly object to option {id}, "{title}": it is a one-way door, and committing before the evidence is in could not be undone.',
  stall: 'I strongly object to option {id}, "{title}": it stalls a decision that needs to be made, and the delay has its own cost.',
};

export const DEFER_CONDITIONS = [
  'the key assumption has been tested with a small, reversible step',
  'a cheap pilot shows whether the main risk is real',
  'the board can agree on a success threshold and see early data against it',
];

export const CONFLICT_RESOLUTIONS = {
  deferred: 'Hold the commitment in {id} until its deferral condition is met; proceed with the reversible steps elsewhere, but nothing that assumes {id}’s answer.',
  direction: 'Sequence them: run the test in {test} first and make the commitment in {commit} conditional on its result.',
};

/**
 * Each debate round turns to a new angle (the order is shuffled per
 * sub-problem), so early and middle rounds bring genuinely new material;
 * once the angles and the experts' patience run out, novelty falls.
 */
export const ANGLES: { name: string; lines: string[] }[] = [
  {
    name: 'timing',
    lines: [
      'On timing, the real question is whether {focus} gets cheaper or dearer if we wait a quarter.',
      'Seasonality matters here: launching anything around {focus} in a slow month hides the signal we need.',
      'A deadline imposed from outside would change my view; a self-imposed one should not.',
      'Moving in the next six weeks keeps momentum, but only if {concern} is handled first.',
    ],
  },
  {
    name: 'cost',
    lines: [
      'Let us price this honestly: the direct cost of {focus} is visible, the founder’s hours are not.',
      'If the budget overruns by half, which part of {focus} do we cut first?',
      'Every dollar here is a dollar not spent on the product customers already pay for.',
      'The cheapest version of {focus} that still teaches us something is smaller than anyone has proposed.',
    ],
  },
  {
    name: 'customers',
    lines: [
      'Existing customers are the cheapest source of truth we have; three calls this week would tell us a lot about {focus}.',
      'The customers who pay today did not sign up for this change, and some of them will say so.',
      'Ask which customer segment would be hurt first if {focus} goes wrong, and protect them explicitly.',
      'Churn, not signups, is the number that will tell us whether {focus} worked.',
    ],
  },
  {
    name: 'capacity',
    lines: [
      'A solo founder has perhaps twenty productive hours a week; {focus} has to fit inside them.',
      'Support load rises with every change, and nobody has budgeted hours for it.',
      'Burnout is a business risk here, not a personal footnote.',
      'Something on the current roadmap has to stop for {focus} to start; we should name it.',
    ],
  },
  {
    name: 'competition',
    lines: [
      'Competitors will react, and the likeliest reaction is a price cut rather than a better product.',
      'A small company wins on focus and speed of learning, not on matching a competitor feature for feature.',
      'If a competitor copied our move on {focus} tomorrow, would we still be ahead?',
      'The market will not wait for a perfect answer on {focus}, but it rarely punishes a careful one.',
    ],
  },
  {
    name: 'measurement',
    lines: [
      'We need one leading indicator for {focus} that moves within a month, not a lagging one that moves in a year.',
      'A success threshold written down before the start is worth more than any forecast.',
      'Without a baseline, nobody will be able to tell whether {focus} helped at all.',
      'Measure {concern} explicitly, or it will be argued about from memory at the review.',
    ],
  },
  {
    name: 'exit',
    lines: [
      'Every option should come with its stop rule: the signal that means we undo {focus}.',
      'The exit costs differ sharply between the options, and that difference deserves more weight.',
      'If we cannot describe how to reverse {focus}, we are treating a one-way door as a two-way one.',
      'A pre-agreed stop date protects us from sunk-cost reasoning later.',
    ],
  },
  {
    name: 'sequencing',
    lines: [
      'Order matters: settling {focus} before the pricing question would lock in assumptions we have not tested.',
      'The parts of {focus} that are reversible should go first, the irreversible ones last.',
      'We can run the cheap experiment and the preparation for the bigger move in parallel.',
      'Doing everything at once is how small teams end up finishing nothing.',
    ],
  },
  {
    name: 'inaction',
    lines: [
      'Doing nothing is also a choice, and its cost is rising every month the plateau lasts.',
      'The status quo has a hidden price in founder energy that nobody is counting.',
      'If we defer {focus}, we should at least decide what would end the deferral.',
      'Inaction feels safe because its losses are invisible, not because they are small.',
    ],
  },
  {
    name: 'learning',
    lines: [
      'Whatever we pick, the first month should be designed to teach, not to scale.',
      'The most valuable outcome of {focus} might be the evidence itself, even if the numbers disappoint.',
      'We keep debating opinions; a two-week test would replace most of them with data.',
      'If this fails, which option leaves the most reusable assets and lessons behind?',
    ],
  },
];
