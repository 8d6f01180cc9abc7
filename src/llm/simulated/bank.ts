/**
 * The simulated board's text bank and keyword rules: data only, read by the
 * phase modules. `{slot}` placeholders are filled from the typed input; `{Slot}`
 * inserts the value capitalised.
 */

import type { HarmCategory } from '../../domain/harm-categories';

/** How each persona talks: what they look at, what would convince them, a recurring line, the question they ask first. */
export const VOICES: Record<string, { lens: string; metric: string; habit: string; question: string }> = {
  technical_architect: { lens: 'the constraints and failure modes of the system', metric: 'a migration plan with a rollback at every step', habit: 'I always ask what breaks first and who can fix it at three in the morning.', question: 'which part of the current system fails first under twice today’s load' },
  financial_analyst: { lens: 'cash, runway and unit economics', metric: 'a payback period the runway can actually survive', habit: 'I want the numbers before the narrative.', question: 'what the cash position looks like if revenue arrives six months later than planned' },
  user_advocate: { lens: 'what customers actually do rather than what they say', metric: 'evidence from real customer behaviour', habit: 'I would rather watch five customers struggle than read fifty survey answers.', question: 'which customers would notice this change in their first week, and how' },
  risk_manager: { lens: 'downside scenarios and reversibility', metric: 'a worst case we can live through', habit: 'My first question is always what happens if this goes wrong.', question: 'what the worst credible outcome is and whether we could recover from it' },
  growth_strategist: { lens: 'market timing and acquisition channels', metric: 'a channel that compounds week over week', habit: 'Speed of learning is the only real advantage a small company has.', question: 'how fast we can put something real in front of buyers' },
  operations_expert: { lens: 'capacity, sequencing and execution', metric: 'a plan that fits the hours actually available', habit: 'Plans fail in the calendar long before they fail in the strategy.', question: 'what gets dropped from this week’s calendar to make room for it' },
  behavioral_psychologist: { lens: 'motivation, bias and how people really decide', metric: 'a choice the founder can sustain without burning out', habit: 'I watch for sunk-cost thinking and the pull of the exciting option.', question: 'whether this option is attractive because it is right or because it is new' },
  data_scientist: { lens: 'evidence, base rates and measurement', metric: 'a test with a sample large enough to mean something', habit: 'I do not trust a conclusion until I know how it would be measured.', question: 'which leading indicator would tell us within a month that this is working' },
  legal_advisor: { lens: 'contracts, liability and ownership', metric: 'terms that can be unwound without litigation', habit: 'Whatever gets signed outlives the enthusiasm that signed it.', question: 'what we would be bound to if this turns out to be the wrong call' },
  people_partner: { lens: 'the people who have to carry the plan', metric: 'a plan the key people have said yes to, one by one', habit: 'I ask each person what they actually want before I design anything.', question: 'who we lose if this goes ahead, and what keeping them would take' },
  engineering_manager: { lens: 'delivery, team health and what the code can bear', metric: 'small milestones someone can check every two weeks', habit: 'I trust a plan once it has survived its first checked milestone.', question: 'who owns the work day to day and how we will know it is slipping' },
  fractional_cto: { lens: 'the cheapest change that buys the most headroom', metric: 'headroom bought per dollar and per week', habit: 'Before any rewrite I look for the one query, index or instance size that buys a year.', question: 'what the smallest change is that removes the current bottleneck' },
  security_officer: { lens: 'what an attacker or an auditor would find first', metric: 'no finding an enterprise questionnaire would block on', habit: 'I start from the breach headline and work backwards.', question: 'what a security review would flag today, and which of it blocks a deal' },
  sales_leader: { lens: 'pipeline, meetings and closed deals', metric: 'meetings booked and deals closed per week', habit: 'If it does not show up in the pipeline, it did not happen.', question: 'how many qualified conversations this produces in the next thirty days' },
  customer_researcher: { lens: 'the jobs customers hire the product for', metric: 'ten interviews that change or confirm the plan', habit: 'I separate what customers say from what they have already done.', question: 'which customers have already paid, in money or effort, to solve this' },
  public_sector_advisor: { lens: 'how public buyers actually procure', metric: 'a route to contract that fits the procurement rules', habit: 'I map the buying process before anyone writes a pitch.', question: 'which framework or tender this would have to go through, and how long that takes' },
  brand_marketer: { lens: 'positioning and the story buyers tell themselves', metric: 'a message the right buyer repeats back unprompted', habit: 'If we cannot say it in one sentence, the market will say it for us.', question: 'what the buyer should believe about us after this, in one sentence' },
  product_manager: { lens: 'trade-offs on the roadmap', metric: 'one success metric per item, agreed before work starts', habit: 'Every yes on the roadmap is a no to something else; I want to name it.', question: 'what we stop doing to make room for this' },
  pricing_strategist: { lens: 'value, packaging and willingness to pay', metric: 'a price tested against the customer’s outcome, not our cost', habit: 'Most small companies undercharge; I check that first.', question: 'what this is worth to the customer who values it most' },
  fundraising_advisor: { lens: 'options, dilution and the right kind of money', metric: 'a path that keeps the most good options open', habit: 'I ask which choice leaves us with the most good options in a year.', question: 'whether this needs outside money, and what kind would fit' },
  supply_chain_lead: { lens: 'suppliers, lead times and stock', metric: 'a second source for everything that can stop us', habit: 'Every plan I sign off has a second supplier in it.', question: 'what single supplier or lead time could stop this cold' },
  customer_success_lead: { lens: 'onboarding, churn and the accounts at risk', metric: 'churn and support load, account by account', habit: 'I read the support queue before the dashboard.', question: 'which current accounts this helps keep, and which it puts at risk' },
  ux_researcher: { lens: 'where users get stuck', metric: 'five users completing the flow without help', habit: 'I watch five users before I believe a survey.', question: 'where a new user would give up in the first ten minutes' },
  international_expansion: { lens: 'market entry, one country at a time', metric: 'one market done properly before the next', habit: 'I would rather win one country than be present in five.', question: 'which single market to prove this in first, and what it costs to enter' },
  turnaround_cfo: { lens: 'cash, week by week', metric: 'a thirteen-week cash forecast that survives a bad month', habit: 'I build the cash forecast before I discuss the strategy.', question: 'how many weeks of cash this leaves in the worst credible month' },
  performance_marketer: { lens: 'what a paying customer costs, campaign by campaign', metric: 'a CAC the margin pays back, measured with tracking we trust', habit: 'I set the kill threshold before the first dollar is spent.', question: 'what a paying customer costs through this channel, and how we would know within four weeks' },
  app_marketplace_lead: { lens: 'the listing, the reviews and the platform’s rules', metric: 'installs and reviews per week from inside the store', habit: 'I read the platform’s policy changelog before the roadmap.', question: 'what the marketplace’s review, billing and revenue-share rules demand before the listing goes live' },
  seo_content_lead: { lens: 'what buyers search for and who already ranks for it', metric: 'signups from organic search per month, judged once pages have had time to rank', habit: 'I look at the results page for a keyword before I write a word for it.', question: 'which searches our buyers actually make, and whether we can outrank what sits on that page today' },
  default: { lens: 'the practical trade-offs', metric: 'clear evidence before a big commitment', habit: 'I try to separate what we know from what we hope.', question: 'what would have to be true for this to be the right call' },
};
export const DEFAULT_CONCERNS = ['hidden costs', 'execution risk'];

// ---- intake: keyword rules (first match wins ties, so the order matters) ----

export const CATEGORY_WORDS: [string, RegExp][] = [
  ['hiring', /\bhir(?:e|es|ing)\b|recruit|co-?founder|salesperson|contractor|employee|freelancer/gi],
  ['pricing', /\bpric|\btiers?\b|\/month|\/mo\b|per month|monetis|monetiz|subscription|discount|usage-based|freemium/gi],
  ['technical', /rewrit|refactor|migrat|architect|codebase|tech(?:nical)? debt|database|\brust\b|python|scal(?:ing|ability|able)|infrastructure|legacy code/gi],
  ['growth', /marketing|\bseo\b|\bads\b|channel|growth|acquisition|outbound|audience|traffic|\bgrow\b/gi],
  ['product', /feature|\bproduct\b|\bapp\b|\bmvp\b|\bbuild\b|launch|roadmap/gi],
  ['finance', /\binvest|funding|\braise\b|loan|runway|budget|investor|\bcash\b/gi],
  ['legal', /legal|\bcontracts?\b|trademark|lawsuit|compliance|gdpr|incorporat|licen[cs]/gi],
  ['operations', /process|operations|supplier|logistics|workload|outsourc|burnout|burnt out/gi],
  ['strategy', /pivot|niche|direction|strategy|double down|\bmarket\b|segment|expand|name my|\bbrand/gi],
];

export const DOMAIN_WORDS: [string, RegExp][] = [
  ['finance', /\$|\bprice|\bpricing|\bmrr\b|runway|revenue|budget|profit|cash|\binvest|\bltv\b|\bcac\b|\bcost|money|\bpay(?:ing)?\b/gi],
  ['market', /customer|\bmarket|channel|\bseo\b|\bads\b|advertis|competitor|segment|\bsales\b|acquisition|\bbrand|\bname my\b|partnership|outbound/gi],
  ['technical', /\bcode|rewrite|architect|scal(?:e|ing|able)|\brust\b|python|performance|refactor|migrat|database|postgres|monolith|tech(?:nical)? debt|test coverage/gi],
  ['people', /\bhire|hiring|co-?founder|\bteam\b|burnt|burnout|developers?\b|salesperson|contractor|\bsolo\b|morale/gi],
  ['legal', /legal|contract|equity|compliance|licen[cs]e|trademark|regulat/gi],
  ['risk', /\brisk|\bfail|outage|security|worst|running out|irreversib/gi],
  ['product', /\bproduct|feature|\btool\b|\bapp\b|dashboard|\bmvp\b|free plan|premium|\bplg\b/gi],
  ['operations', /hours?\/week|\bhours\b|process|operations|part-time|workload|-hour weeks|capacity/gi],
];

/** Words that make a question generic: with these removed, nothing concrete is left to decide. */
export const GENERIC =
  /\b(?:succeed|success(?:ful)?|happ(?:y|ier|iness)|better|improve|make it|make money|get rich|grow my (?:business|company|startup)|be great|thrive|win|what should i do(?: next| now)?(?: with my life)?|where (?:do|should) i (?:start|begin)|my life|my career)\b/gi;

/** Requests the board must not deliberate, with the reason given and the category named: a backstop for what the pre-screen misses. */
export const HARMFUL: [RegExp, string, HarmCategory][] = [
  [/\b(?:spread(?:ing)?|start(?:ing)?|plant(?:ing)?)\b[^.?!]{0,40}\brumou?rs?\b|\brumou?rs? about\b|\bdefam|\bslander|\blibel|\bsmear(?:ing)?\b/i, 'Spreading rumours about or defaming others is harmful and may be unlawful; the board will not help plan it', 'harassment'],
  [/\bsabotag/i, 'Sabotaging another person or business causes deliberate harm; the board will not help plan it', 'illegal'],
  [/\bbrib(?:e|es|ing|ery)\b|\bkickbacks?\b|\bpay off (?:an? |the )?(?:official|inspector|regulator)/i, 'Bribing an official is illegal; the board will not deliberate it', 'illegal'],
  [/\b(?:deceiv\w*|mislead\w*|lie to|lying to)\b[^.?!]{0,60}\b(?:safety|customers|buyers|users|regulators?|investors|the public)\b/i, 'Deceiving customers, investors or regulators is harmful and unlawful; the board will not help with it', 'deception'],
  [/\b(?:hid(?:e|ing)|conceal\w*|cover(?:ing)? up|downplay\w*)\b[^.?!]{0,60}\b(?:safety|defects?|recall|hazards?|injur\w*|contamina\w*)/i, 'Hiding a safety problem from the people it affects is harmful and unlawful; the board will not help with it', 'unsafe_products'],
  [/\bfake (?:reviews?|testimonials?)\b|\bastroturf/i, 'Fabricating reviews deceives customers and breaks consumer-protection law; the board will not help with it', 'deception'],
  [/\b(?:launder\w*|money laundering|evade (?:the )?taxe?s?|tax evasion|embezzl\w*|ponzi|insider trading|price[- ]fixing)\b/i, 'This describes a financial crime; the board will not deliberate it', 'illegal'],
  [/\b(?:blackmail\w*|extort\w*|harass\w*|dox(?:x)?(?:ing)?|intimidat\w*)\b|\bthreaten(?:ing)? (?:him|her|them|my|an?|the) (?:employee|former|ex|competitor|partner|co-?founder|customer)/i, 'Intimidating or harassing someone is harmful; the board will not help plan it', 'harassment'],
  [/\b(?:hack into|steal|stealing)\b[^.?!]{0,40}\b(?:data|accounts?|trade secrets?|customer list|database|passwords?)\b/i, 'Taking data or secrets without permission is unlawful; the board will not help plan it', 'intrusion'],
];

/** Facts read from the problem and context: the first capture group that matched is the value. */
export const FACTS = {
  budget: /(\$\s?\d[\d,.]*\s?[kKmM]?)\s*(?:saved|budget|to invest)|(?:budget|invest|resources:)\s*(?:of\s*)?\(?(\$\s?\d[\d,.]*\s?[kKmM]?)|(\$\s?\d[\d,.]*\s?[kKmM]?)/i,
  time: /\b(?:in|within|next|over)\s+(?:the\s+next\s+)?(\d+\s*(?:months?|weeks?))\b|(\d+\s*months?)\s*(?:of\s*)?runway/i,
  team: /(\d+\s+(?:developers|engineers|people))\b|\b(solo|alone)\b|no technical (co-?founder)/i,
  audience: /(\d[\d,]*\s+(?:paying customers|customers|free users|users))\b/i,
  hours: /(\d+)\s*hours?\s*(?:\/|per\s)\s*week/i,
  goal: /\b(?:goal|success(?: criteria)?)\s*:\s*([^.]+)/i,
} as const;
export type Fact = keyof typeof FACTS;

/** What the board assumes from each fact it found. */
export const ASSUMPTIONS: Record<Fact | 'none', string> = {
  budget: 'The {budget} mentioned is the money available for this; no outside funding is assumed.',
  time: 'A timeline of {time} is a firm constraint rather than a rough estimate.',
  team: 'The current team ({team}) stays as it is unless the decision itself changes it.',
  audience: 'The existing {audience} stay roughly stable while this is decided.',
  hours: 'Available time stays at roughly {hours} hours per week.',
  goal: 'The stated goal holds: {goal}.',
  none: 'No hard constraints apply beyond those stated; current resources stay as they are.',
};

/** Blocking questions for thin context, by the fact that is missing (naming when the decision is a name). */
export const CLARIFY: Record<Exclude<Fact, 'hours'> | 'naming', { question: string; why: string; assumption: string }> = {
  budget: { question: 'How much money can you put into this without putting the business at risk?', why: 'The budget decides whether the bolder options are realistic at all.', assumption: 'A modest budget of a few thousand dollars and no outside funding.' },
  time: { question: 'By when do you need results, or a decision?', why: 'A short deadline favours fast, reversible moves over long bets.', assumption: 'A horizon of about six months, with a first review after six weeks.' },
  team: { question: 'Are you doing this alone, or is there a team or partner who shares the work?', why: 'Who carries the work changes which options are feasible.', assumption: 'You work on this alone, alongside your other commitments.' },
  goal: { question: 'What outcome would make this a success for you, in numbers if possible?', why: 'Without a success measure the board cannot compare the options fairly.', assumption: 'Success means steady revenue growth without risking what already works.' },
  audience: { question: 'Who are your current customers or users, and roughly how many are there?', why: 'Existing customers decide how much a change can cost you.', assumption: 'A small base of early customers whose goodwill matters.' },
  naming: { question: 'Is either name already trademarked or used by a competitor in your market?', why: 'A trademark conflict would rule an option out regardless of preference.', assumption: 'Both names are legally available and their domains can be bought.' },
};
/** The facts that block each kind of decision most, most blocking first. */
export const CLARIFY_ORDER: Record<string, Exclude<Fact, 'hours'>[]> = {
  hiring: ['team', 'budget', 'goal', 'time', 'audience'],
  pricing: ['audience', 'goal', 'budget', 'time', 'team'],
  growth: ['budget', 'goal', 'time', 'audience', 'team'],
  technical: ['team', 'time', 'goal', 'budget', 'audience'],
  other: ['goal', 'budget', 'time', 'team', 'audience'],
};

// ---- decomposition ----

/** Hard-to-reverse commitments: a sub-problem naming one is complex, and its options include a one-way door. */
export const IRREVERSIBLE = /rewrit|co-?founder|equity|\bhir(?:e|es|ing)\b|migrat|pivot|\binvest|\bcontracts?\b|\bsign(?:s|ed|ing)?\b|\bquit\b|\bsell (?:the|my|our) (?:company|business|startup)/i;

/**
 * One sub-problem per concern (`match`: the words of a listed concern that call for it); each template's domains
 * differ from every other's, so each draws its own experts. `hard`: the commitments in the problem that make it hard to reverse.
 */
export const SUBPROBLEMS: Record<string, { title: string; goal: string; criteria: string[]; domains: string[]; match: RegExp; hard?: RegExp }> = {
  strategy: { title: 'Overall direction', goal: 'Decide the overall direction to commit to, and what would make you change it later.', criteria: ['A single direction the board can state in one sentence', 'Fits the stated resources and timeline'], domains: ['strategy'], match: /direction|strategy/i },
  pricing: { title: 'Pricing and monetisation model', goal: 'Decide how to charge for the product{audience} so that revenue arrives before the cash runs out.', criteria: ['A price point tested with real buyers', 'Margins that cover acquisition cost'], domains: ['finance', 'market', 'product'], match: /pric|monetis|monetiz|charge/i },
  people: { title: 'Staffing and ownership of the work', goal: 'Decide who carries the work{team}, and what that costs in control, cash and focus.', criteria: ['Workload stays sustainable', 'Ownership and control are explicit'], domains: ['people', 'finance'], match: /\bhir|recruit|staff|\bteam\b|co-?founder/i, hard: /co-?founder|equity|\bhir(?:e|es|ing)\b/i },
  finance: { title: 'Budget, runway and financial threshold', goal: 'Decide how much of {budget} this may consume, and the financial signal that would trigger a change of course.', criteria: ['Leaves a cash buffer for at least three months', 'A spending ceiling is written down'], domains: ['finance', 'risk'], match: /fund|raise|financ|budget|invest|pay for|cash/i, hard: /\binvest\w*/i },
  legal: { title: 'Legal and equity terms', goal: 'Decide which contractual or equity commitments are acceptable and what protection they need before anything is agreed.', criteria: ['Terms can be unwound if the arrangement fails', 'Vesting or exit terms are agreed in writing'], domains: ['legal', 'risk'], match: /legal|incorporat|trademark|contract|protect|equity/i, hard: /equity|\bcontracts?\b/i },
  market: { title: 'Target customers and first channel', goal: 'Decide which customers to serve first{audience} and which channel will reach them at an acceptable cost per customer.', criteria: ['A named customer segment', 'A cost per customer the margins can carry'], domains: ['market', 'strategy'], match: /launch|market|sell|promot|grow|acquir|customers?/i, hard: /pivot/i },
  product: { title: 'Product scope for the next release', goal: 'Decide what the product must include, and leave out, to prove the chosen direction quickly.', criteria: ['A scope that ships within the timeline', 'Customers can see the difference'], domains: ['product', 'technical'], match: /\bbuild|develop|ship|\bcode|design|\bmake\b|product/i, hard: /pivot/i },
  operations: { title: 'Execution capacity and milestones', goal: 'Decide how the work fits into {hours} and which milestones show it is on track.', criteria: ['A weekly plan that fits the available hours', 'Milestones with dates'], domains: ['operations', 'people'], match: /scal|operat|\brun\b|support|process/i },
  technical: { title: 'Technical approach and change path', goal: 'Decide how the technical work should be approached and sequenced so the product keeps running while it changes.', criteria: ['No major outage during the change', 'Feature work can continue in parallel'], domains: ['technical', 'operations'], match: /tech|architect|infrastructure|platform|stack/i, hard: /rewrit\w*|migrat\w*/i },
  risk: { title: 'Downside protection', goal: 'Decide what the worst credible outcome is and which safeguards must be in place before committing.', criteria: ['The worst case is survivable', 'A stop trigger is defined in advance'], domains: ['risk', 'strategy'], match: /risk|secur|safe/i },
  measures: { title: 'Success measures and checkpoints', goal: 'Decide which measurable signals, and by when, will show the decision was right or needs revisiting.', criteria: ['One leading indicator per decision', 'A review date on the calendar'], domains: ['product', 'finance'], match: /measur|metric|kpi/i },
};
/** The single high-level sub-problem of a problem too vague to split. */
export const VAGUE_SUBPROBLEM = {
  title: 'Define success and the first concrete step',
  goal: 'Decide what success concretely means for you over the next six months, and the first step that tests whether you are heading there.',
  criteria: ['Success is stated as something measurable', 'A first step that fits in a month'],
};

// ---- debate ----

export const OPENING = {
  intros: ['I come at {focus} through the lens of {lens}.', 'My starting point on {focus} is {lens}, because that is where I have seen these decisions won or lost.'],
  stances: {
    low: 'My instinct is a cautious, staged path: take the smallest step that teaches us something and keep every option open until the evidence is in.',
    medium: 'I lean towards a time-boxed pilot: commit a fixed slice of time and money, then decide with real data rather than opinions.',
    high: 'I would commit quickly and decisively, because the bigger risk here is moving too slowly while the window is open.',
  },
  outlooks: {
    skeptical: 'I am sceptical of the upside estimates that usually accompany decisions like this, and I would discount them heavily.',
    balanced: 'The upside is real, but so is the downside, and I want both written down before we choose.',
    optimistic: 'I genuinely think there is a good outcome available here if the effort stays focused.',
  },
  lean: 'Of the paths on the table, my early lean is towards "{Alt}", though I hold that loosely.',
  concerns: ['My first concern is {concern}: it is easy to underestimate and expensive to discover late.', 'I am also watching {concern2}, because it tends to surface only once the commitment is made.'],
  padding: ['I am open to being persuaded, but by evidence rather than enthusiasm.', 'Whatever we choose, I want a date on the calendar when we look at this again.', 'None of this is a reason to freeze; it is a reason to be deliberate.', 'I will keep this short so the others can weigh in.'],
};

/** The three kinds of stance: the expert's own (by risk tolerance), a polarised camp, and the line debates converge on. */
export const STANCES = {
  own: { low: 'Stage {focus} and commit nothing irreversible without {metric}', medium: 'Pilot {focus} for a fixed window and judge it on {metric}', high: 'Commit to {focus} now and insist on {metric}' },
  camp: { commit: 'Commit to {focus} now; the cost of waiting is higher than the cost of a wrong turn', hold: 'Do not commit to {focus} until {metric} is in hand' },
  common: ['time-box a pilot on {focus} with a go/no-go checkpoint before any one-way commitment', 'take a reversible first step on {focus} and review the evidence at a fixed checkpoint', 'start {focus} small, measure it against agreed criteria, then commit or stop'],
};

/** Recurring talking points: each persona draws a small fixed set for the whole debate, so late rounds repeat themselves. */
export const CORE = ['{habit}', 'Everything on {focus} comes back to {lens} for me.', 'Until I see {metric}, I keep coming back to {concern}.', '{Concern} is still the risk I would put at the top of the list.', 'My test stays the same: {metric}, or we do not scale it up.', 'We should not lose sight of {concern2} while we argue about {focus}.'];

/** Fresh material; the concessions (marked by CONCESSION) are left out by experts holding their ground. */
export const FRESH = [
  'I want to challenge the assumption that {focus} can be settled before anyone has looked hard at {concern}.',
  'Several arguments so far treat speed as free; it is not, and the bill usually arrives as {concern2}.',
  'I disagree with the optimistic reading: nobody has shown evidence that the upside materialises within the timeline.',
  'What worries me about the bolder proposal is that it removes every exit before we have learned anything.',
  'I will concede the point about momentum: waiting indefinitely has its own cost.',
  'Fair challenge to my earlier view; a narrower first step would answer most of my objection.',
  'I can support a smaller commitment if it comes with an explicit review date.',
  'One fact worth adding: comparable teams usually underestimate this kind of work by a factor of two.',
  'A useful data point would be how many existing customers would notice the change at all.',
  'The cheapest evidence available is a short experiment with a predefined success threshold.',
  'What would have to be true in three months for us to call this a mistake?',
  'Who exactly carries the extra load if this takes longer than planned?',
  'Building on the point about {concern}, I would add a concrete spending ceiling.',
  'The disagreement is narrower than it looks: we mostly differ on timing, not substance.',
  'Nobody has priced the distraction cost yet, and for a founder that cost is real.',
  'If we are wrong, I would rather be wrong cheaply and early than expensively and late.',
];
export const CONCESSION = /concede|fair challenge|I can support/i;

/** Each round turns to a new angle (shuffled per sub-problem), the same for every speaker of that round. */
export const ANGLES = [
  ['On timing, the real question is whether {focus} gets cheaper or dearer if we wait a quarter.', 'Moving in the next six weeks keeps momentum, but only if {concern} is handled first.', 'A deadline imposed from outside would change my view; a self-imposed one should not.'],
  ['Let us price this honestly: the direct cost of {focus} is visible, the founder’s hours are not.', 'If the budget overruns by half, which part of {focus} do we cut first?', 'The cheapest version of {focus} that still teaches us something is smaller than anyone has proposed.'],
  ['Existing customers are the cheapest source of truth we have; three calls this week would tell us a lot about {focus}.', 'Churn, not signups, is the number that will tell us whether {focus} worked.', 'The customers who pay today did not sign up for this change, and some of them will say so.'],
  ['A solo founder has perhaps twenty productive hours a week; {focus} has to fit inside them.', 'Something on the current roadmap has to stop for {focus} to start; we should name it.', 'Burnout is a business risk here, not a personal footnote.'],
  ['We need one leading indicator for {focus} that moves within a month, not a lagging one that moves in a year.', 'Without a baseline, nobody will be able to tell whether {focus} helped at all.', 'A success threshold written down before the start is worth more than any forecast.'],
  ['Every option should come with its stop rule: the signal that means we undo {focus}.', 'If we cannot describe how to reverse {focus}, we are treating a one-way door as a two-way one.', 'A pre-agreed stop date protects us from sunk-cost reasoning later.'],
  ['Doing nothing is also a choice, and its cost is rising every month the plateau lasts.', 'If we defer {focus}, we should at least decide what would end the deferral.', 'Inaction feels safe because its losses are invisible, not because they are small.'],
];

export const LINES = {
  responseLead: 'Last round I argued: {previous}.',
  lateLead: 'I think the main points are on the table now, so briefly.',
  agree: ['I agree with {name} on {stance}.', 'Building on what {name} said, {stance} answers most of my worry about {concern}.'],
  disagree: ['I disagree with {name}’s case for {stance}; it underrates {concern}.', '{Name} argues for {stance}, and I think that leaves {concern} unaddressed.'],
  camp: {
    commit: 'I still disagree with {names}: every month spent gathering more evidence is a month the window narrows.',
    hold: 'I still disagree with {names}: committing before we have evidence turns a recoverable question into an irreversible one.',
  },
  converge: ['I can support where the board is landing, provided we keep {metric} in sight.', 'I can live with the emerging consensus, as long as {concern} stays on the checklist.'],
  holdout: 'I still do not share the emerging consensus, and I want that on the record.',
  broke: 'I am stepping back from the easy consensus until I see {metric}.',
  intervention: {
    low: 'it raises the stakes, so I would protect the downside before anything else.',
    medium: 'it shifts the balance, and I would fold it into the first milestone.',
    high: 'it is a reason to move faster, not slower, as long as we measure it.',
  },
  redirect: 'Returning to what we must decide, and to the goal: {goal}.',
  question: 'On the facilitator’s question: my answer is {metric}; without it I would not move.',
  research: 'The research on "{query}" matters here: {finding}.',
  researchRequest: 'Before I commit, I want research on one point: {question}',
  drift: 'Stepping back, I keep thinking about where the whole industry will be in ten years and whether any of this will matter.',
};

/** How one expert names another's stance, by its kind. */
export const STANCE_NAMES: Record<string, string> = { common: 'the shared checkpoint approach', commit: 'committing straight away', do: 'holding off until the evidence is in', pilot: 'a time-boxed pilot', stage: 'a staged, reversible approach' };

/** A persona's reply to a moderator who has just intervened. */
export const MODERATOR_REPLIES: Record<string, string> = {
  contrarian: 'Taking the devil’s advocate point seriously, our easy agreement may be hiding {concern}.',
  skeptic: 'The sceptic is right to ask what my claim rests on; I would rather test it with evidence than assert it.',
  optimist: 'The reframe helps: there is a version of {focus} that could work if the first step stays small.',
  deadlock: 'To break the deadlock, I can accept the facilitator’s proposal: {common}.',
  refuse: 'I hear the facilitator’s proposal, but I cannot yet accept it without {metric}.',
};

/** Claims an expert makes, by what they rest on. */
export const CLAIMS = {
  evidence: ['Comparable small software companies report that most churn happens in the first ninety days.', 'Post-mortems of rewrites consistently show timelines doubling against the first estimate.'],
  experience: ['Teams of this size usually underestimate the effort of {focus} by about half.', 'In my experience the first checkpoint reveals most of what matters about {focus}.', 'I have seen founders lose momentum when {focus} stays undecided for more than a quarter.'],
  assumption: ['Customers will tolerate a few weeks of disruption while {focus} changes.', 'The current revenue holds steady while {focus} is being settled.', 'A competitor will move within six months if we do not.'],
};

export const RESEARCH_QUESTIONS: [RegExp, string][] = [
  [/law[- ]?firm|legal (?:market|customers)/i, 'What churn do law-firm customers typically show in year one?'],
  [/pric|tier|monetis|monetiz|free plan/i, 'What free-to-paid conversion do small-business SaaS tools typically see after introducing a first paid tier?'],
  [/\bads\b|paid|acquisition|channel|customers/i, 'Which acquisition channels typically reach the first hundred paying customers for a bootstrapped SaaS?'],
  [/co-?founder|equity|\bhire|salesperson|staff/i, 'How long does a first sales or co-founder hire at a small company typically take to pay off?'],
  [/rewrit|migrat|refactor|architect|technical/i, 'How long do incremental rewrites of a production application typically take compared with the estimate?'],
  [/.*/, 'What do comparable small companies typically experience when they change {focus}?'],
];

export const FACILITATOR = {
  questions: ['What evidence would settle {focus} within the next month?', 'What is the cheapest step that would tell us whether we are right about {focus}?', 'Which assumption about {focus}, if wrong, would hurt the most?'],
  late: 'Can everyone live with the emerging position on {focus}, and if not, what exactly blocks you?',
  drift: 'Parts of the round drifted away from the goal, so the next round should return to it.',
};

export const MODERATORS: Record<string, { open: string; body: string[]; close: string }> = {
  contrarian: {
    open: 'Let me play devil’s advocate, because this board agreed on {focus} suspiciously fast.',
    body: ['{Names} all landed on roughly the same line, and agreement this early usually means an alternative was never examined.', 'What if the option nobody is defending is actually the right one? Someone should make its best case.', 'I would ask each of you to name the strongest argument against your own position before we go on.'],
    close: 'If the agreement survives that test, it is worth much more; disagree with me, but with reasons, not politeness.',
  },
  skeptic: {
    open: 'I want to press on the evidence behind what has been said about {focus}.',
    body: ['{Names} made claims that sound plausible but rest on assumption rather than data.', 'Which of these numbers comes from an actual source, and which from a feeling?', 'An untested assumption repeated three times starts to sound like a fact; it is not one.'],
    close: 'Where the evidence is missing, let us say so plainly and design the cheapest test to get it.',
  },
  optimist: {
    open: 'The mood has turned heavy, so let me reframe what could go right with {focus}.',
    body: ['{Names} have listed real risks, but every one of them can be bounded with a small first step.', 'Most of the downside discussed is recoverable, which means the real risk is doing nothing.', 'Founders in similar positions have succeeded by narrowing the first move rather than abandoning it.'],
    close: 'Let us ask what would have to be true for this upside to materialise, and test exactly that.',
  },
  deadlock: {
    open: 'This debate is deadlocked: {names} have held opposite positions for several rounds without moving.',
    body: ['Both sides have a point: one is protecting against an irreversible mistake, the other against the cost of delay.'],
    close: 'Can each of you accept that, even if it is not your first choice? If not, we move to a vote and record the dissent.',
  },
};
/** The facilitator's three ways through a deadlock. */
export const DEADLOCK_WAYS = [
  'I propose a way through: a reversible pilot on {focus}, time-boxed to six weeks, with the success threshold agreed now, so the commitment waits for evidence but not forever.',
  'I propose a decision criterion instead of more argument: if the agreed leading indicator on {focus} is met by the checkpoint, we commit; if not, we stop.',
  'I propose splitting the difference: commit a limited part of the resources to {focus} now and hold the rest until the first results are in.',
];

export const RESEARCH = {
  prefix: 'Based on general knowledge (not a live source):',
  /** Findings by topic; the first whose pattern matches the query (else the sub-problem) wins. */
  findings: [
    [/churn|retention|retain/i, 'small-business software customers commonly churn at 3-7% a month, and the first ninety days account for a large share of it. Vertical niches such as professional services often retain better than horizontal tools, because switching costs are higher.'],
    [/pric|tier|conversion|free|paid plan|monetis|monetiz/i, 'free-to-paid conversion for self-serve tools is usually in the low single digits, often 2-5% of active users. Moderate price increases tend to cost fewer customers than founders expect.'],
    [/\bseo\b|content|\bads\b|acquisition|\bcac\b|channel|customers/i, 'new sites typically need six to twelve months before content ranks well, and paid search for niche B2B software often costs tens to hundreds of dollars per trial. Most bootstrapped products find their first customers through founder-led sales.'],
    [/co-?founder|equity|\bhire|sales|contractor/i, 'four-year vesting with a one-year cliff is the common default for co-founders, and a first sales hire commonly needs three to six months to become productive.'],
    [/rewrit|migrat|refactor|architect|rust|python|scal|technical/i, 'large rewrites very often take twice the original estimate, and incremental replacement usually carries less risk than a big-bang switch. Most scaling problems at this size come from a few hot paths.'],
  ] as [RegExp, string][],
  general: 'outcomes for small companies facing this kind of decision vary widely, and the spread matters more than the average; they usually go wrong through slow drift rather than a single dramatic failure.',
  caveat: 'These are rough base rates from general knowledge, not figures for this market, and they should be checked against real data.',
};

// ---- voting ----

export const OPTIONS = {
  bold: { title: 'Commit now to {focus}', description: 'Settle {focus} now and put the full resources behind it: the fastest route to the goal, with no built-in exit.', pros: ['Fastest route to a result', 'Clear focus for the whole team', 'Captures the window before competitors move'], cons: ['Hard to reverse once money and time are spent', 'Little evidence gathered before committing'], bestIf: 'The evidence is already strong and waiting carries a real cost' },
  pilot: { title: 'Pilot {focus} first', description: 'Run a time-boxed pilot on {focus} with a predefined success threshold, then commit or stop.', pros: ['Real evidence at a bounded cost', 'Keeps the option to scale up or walk away', 'Forces an explicit success criterion'], cons: ['Slower than committing outright', 'A small pilot can give a misleading signal'], bestIf: 'The main uncertainty can be tested cheaply within a few weeks' },
  cautious: { title: 'Stage {focus} gradually', description: 'Keep the current course while preparing {focus} in reversible stages, each gated by a checkpoint.', pros: ['Protects cash and current customers', 'Every stage can be undone', 'Leaves time to gather evidence'], cons: ['Risks losing momentum', 'Can drift into never deciding'], bestIf: 'Runway is tight or the downside of a wrong move is severe' },
  /** For the person's own alternatives. */
  alternative: { description: 'It is the natural choice if it fits the resources and timeline you described.', pros: ['Answers the question directly with a concrete path', 'Plays to the strengths already available', 'Produces a visible result within the timeline'], cons: ['Its cost and time are easy to underestimate', 'Depends on assumptions nobody has tested yet', 'Narrows what can be tried next'], bestIf: 'Early evidence supports it and the budget can absorb a slow start' },
};
export const STATUS_QUO = /\b(?:stay|keep|stick|continue|wait|double down|current|horizontal)\b/i;

export const VOTE = {
  reasons: {
    bold: 'It commits decisively, and I think the cost of hesitating is higher than the cost of a wrong turn we can correct.',
    pilot: 'It buys real evidence at a bounded cost, and it keeps the choice to scale up or stop in our hands.',
    cautious: 'It protects what already works and keeps every step reversible while the evidence comes in.',
    neutral: 'On balance it fits the goal best with the resources actually available.',
  },
  closers: ['I would revisit this vote if the first checkpoint shows the opposite of what we expect.', 'My confidence is moderate; the others raised points I take seriously.', 'I would want the success threshold written down before any money is spent.'],
  objections: {
    oneWay: 'I strongly object to option {id}, "{title}": it is a one-way door, and committing before the evidence is in could not be undone.',
    stall: 'I strongly object to option {id}, "{title}": it stalls a decision that needs to be made, and the delay has its own cost.',
  },
  calibration: {
    majority: 'Most of the board reached the same choice independently, which strengthens my confidence.',
    tied: 'The board is evenly split, so I hold my confidence where it was.',
    outlier: 'I am in the minority, so I lower my confidence: the others may see something I am missing.',
  },
};

// ---- synthesis, final recommendation, expert summaries ----

export const SYNTHESIS = {
  mechanisms: { simple_majority: 'simple majority', supermajority: 'a supermajority (at least three quarters), because the decision is hard to reverse', confidence_weighted: 'confidence-weighted votes, because the experts’ confidence varied widely' } as Record<string, string>,
  deferUntil: ['the key assumption has been tested with a small, reversible step', 'a cheap pilot shows whether the main risk is real'],
  caveats: ['This rests on assumptions about time and budget that should be checked at the first review.', 'Set an explicit checkpoint so the decision is revisited rather than drifting.'],
  steps: ['Write down the success threshold and the date of the first review before starting.', 'Review progress at the first checkpoint and decide to continue, adjust or stop.', 'Keep a simple weekly log of the key metric so the review rests on evidence.'],
  tradeoffs: ['Speed versus evidence: moving in stages costs some momentum but avoids an expensive wrong turn.', 'Focus versus optionality: committing concentrates effort but narrows what can be tried next.'],
  conflicts: {
    deferred: 'Hold the commitment in {id} until its deferral condition is met; proceed with the reversible steps elsewhere, but nothing that assumes {id}’s answer.',
    direction: 'Sequence them: run the test in {test} first and make the commitment in {commit} conditional on its result.',
  },
};

/**
 * What the simulated board says needs a professional (`beyondGeneralGuidance`),
 * by what the decision commits to (signing away equity, signing an agreement)
 * or, for `situation` rules, what the person's situation puts at stake
 * (personal savings, health, physical safety). Ordinary product, marketing
 * and engineering choices match none of them.
 */
export const GUIDANCE: { kind: 'legal' | 'medical' | 'financial' | 'safety'; when: RegExp; what: string; situation?: true }[] = [
  { kind: 'legal', when: /\bequity\b|\bvesting\b|\bcap table\b|co-?founder agreement/i, what: 'have a startup lawyer draft the equity and vesting agreement before anyone is promised or signs a share' },
  { kind: 'legal', when: /revenue[- ]share|partner(?:ship)? (?:agreement|contract|terms)|reseller agreement|\bsign(?:ing)? (?:a|the) (?:contract|agreement|lease)\b/i, what: 'have a lawyer review the agreement and its terms before you sign it' },
  { kind: 'financial', when: /personal savings|life savings|\$[\d.,]+k? (?:saved|of savings)|\bsaved\b|personal (?:loan|guarantee)|\bmortgage\b|\bretirement\b|\bremortgag/i, what: 'ask an accountant or financial adviser how much of your personal savings you can put at risk before you commit it', situation: true },
  { kind: 'medical', when: /\bmedical\b|\bmedication\b|\billness\b|health condition|\bdoctor\b/i, what: 'talk to a doctor about the health side of this decision before you act on it', situation: true },
  { kind: 'safety', when: /\bhazard|\binjur|\bunsafe\b|heavy machinery|physical safety|\bflammable\b/i, what: 'have a qualified safety professional assess the physical risks before staff or customers are exposed to them', situation: true },
];

export const SUMMARY = {
  conditions: {
    low: ['a small pilot of {focus} shows real demand first', 'nothing irreversible is signed before the evidence is in', 'the key assumption is checked with real customers'],
    medium: ['the first cheap test of {focus} confirms the main assumption', 'early results are reviewed at a fixed date', 'the team can absorb the extra work without slipping'],
    high: ['we move before the window on {focus} closes', 'the upside is large enough to justify the risk', 'early signals are read quickly and acted on'],
  },
  closers: { low: 'If those conditions fail, I would rather wait than commit.', medium: 'I would revisit this view once the first results are in.', high: 'Waiting has a cost too, and I think it is the larger one.' },
  padding: ['Cheap evidence should come before any large commitment.', 'The rest of the debate did not change this core view.', 'That is the view I would want the next discussion to start from.'],
};

// ---- lessons ----

/** A failed session's lesson, by what its failure reason names; the last entry catches the rest. */
export const FAILURE_LESSONS: [RegExp, string, string, string, string][] = [
  [/budget|cost|spend|token/i, 'budget', 'A deliberation on {label} can exhaust its budget before it reaches a recommendation when many sub-problems debate for the full number of rounds.', 'When the decision splits into many sub-problems or the debates run long without converging.', 'Cap the sub-problems and rounds up front, and stop each debate as soon as the positions converge.'],
  [/rate|429|overload|unavailable|5\d\d|provider|network|time ?out/i, 'provider', 'A model provider outage can stop a session on {label} midway and lose the work done so far.', 'When the model provider is rate limiting or failing intermittently.', 'Retry with backoff and save progress after each step, so a resumed session does not start over.'],
  [/refus|unsafe|policy/i, 'refused', 'A request framed outside an ordinary business decision is refused before any deliberation on {label}.', 'When the problem asks for something harmful or is not a decision at all.', 'Restate the problem as a lawful business choice between concrete options, with a goal.'],
  [/schema|json|invalid|parse|truncat/i, 'invalid-output', 'An answer that does not fit the expected structure can stop a session on {label} before any recommendation.', 'When a step asks for a large or deeply nested structured answer.', 'Keep the requested structures small and repair or retry an invalid answer before failing the session.'],
  [/.*/, 'session', 'A session on {label} can fail before any recommendation for reasons unrelated to the decision itself.', 'When a long session depends on many consecutive model calls.', 'Save the progress of each sub-problem so a retry resumes rather than restarts.'],
];

/** Process lessons, each with the condition (read by memory.ts) under which a session teaches it, and its confidence range. */
export const PROCESS_LESSONS: Record<string, { lesson: string; trigger: string; fix: string; confidence: [number, number] }> = {
  'max-rounds': { lesson: 'On {label}, debates that run to the round limit usually lack a concrete success criterion to converge on.', trigger: 'When a sub-problem has no measurable success criterion or the experts keep restating their positions.', fix: 'Set tighter success criteria for each sub-problem before the debate starts, and ask each expert what evidence would change their mind.', confidence: [0.55, 0.85] },
  deferred: { lesson: 'Hard-to-reverse {label} without broad agreement end up deferred unless the board has a reversible option to choose.', trigger: 'When a one-way decision divides the experts.', fix: 'Include a staged, reversible option such as a pilot among the options of every one-way decision.', confidence: [0.45, 0.8] },
  tie: { lesson: 'Evenly split votes on {label} often mean the options were not separated by the criterion that matters most.', trigger: 'When the experts split evenly between two options.', fix: 'Name the deciding criterion before the vote, and add a cheap test that would break the tie.', confidence: [0.4, 0.75] },
  convergence: { lesson: 'Debates on {label} converge quickly when every sub-problem has a concrete goal.', trigger: 'When the sub-problems are phrased as concrete choices with a stated goal.', fix: 'Keep phrasing sub-problems as concrete choices, each with its goal.', confidence: [0.4, 0.65] },
  framing: { lesson: 'Sessions on {label} go best when the goal, the options and the main constraint are stated up front.', trigger: 'When a new problem arrives with little context.', fix: 'Ask for the goal, the options and the main constraint before the debate starts.', confidence: [0.4, 0.7] },
};

/** What a decision's wording says the board favoured, for the domain lesson. */
export const DECISION_KINDS: [RegExp, string, string][] = [
  [/\bdefer|\bwait|postpone|more analysis/i, 'defer', 'deferring the commitment until the key assumption is tested'],
  [/\bpilot\b|\btest\b|\btrial\b|experiment|\bstage|gradual|reversible/i, 'pilot', 'a staged pilot before a full commitment'],
  [/\bhir(?:e|ing)\b|recruit|contractor|part-time|salesperson|co-?founder/i, 'hiring', 'a part-time or contract hire before a permanent one'],
  [/\bpric|\btier|discount|subscription/i, 'pricing', 'testing a price change on new customers before existing ones'],
  [/.*/, 'first-step', 'a reversible first step with a fixed review date'],
];

export const LESSON_REPLIES = {
  same: 'They are the same lesson in different words: same trigger, same fix.',
  different: 'They share a topic but apply to different situations, so both are worth keeping.',
  use: 'Applies here, as this decision has the same shape: {gist}.',
  skip: 'Too uncertain to rely on for this decision.',
};

/** Sentence openers and function words that start a capitalised run without being part of a name. */
export const NOT_NAME_WORDS = new Set(
  'The A An Our My We I This That These Those In On At For If When While But And Or So As It Its They Their He She His Her You Your After Before With Without From To By Of Then There Here What Which Who How Why Both Each Every'.split(' '),
);
