/**
 * Guardrails of seed 002, 4.5.11: the user alone decides and acts, so every
 * recommendation is advisory ("We recommend…", never "You must…"); advice
 * touching law, health, money or physical safety, and irreversible
 * decisions, carries an escalation disclaimer; and clearly illegal or
 * harmful requests are refused before any model is called. All rules are
 * deterministic so a replayed session produces the same text.
 */

// ───────────────────────────── advisory lint ─────────────────────────────

interface DirectiveRule {
  pattern: RegExp;
  /** Whether the directive forbids ("you must not") rather than orders; the rewrite keeps the polarity. */
  negative: boolean;
  /** The advisory phrase at the start of a clause ("We recommend that you …"). */
  replacement: string;
  /** The phrase starts with "you": judge it by the word before it (see `directiveContext`). */
  contextual: boolean;
}

/**
 * Words after which "you must / have to / need to …" still gives an order:
 * conjunctions and sentence adverbs ("and you must", "honestly you need to").
 * After any other word the phrase is a question ("do you have to"), a
 * condition ("if you need to") or a relative clause ("the runway you have to
 * spend"), none of them directive, so it is left alone.
 */
const CLAUSE_OPENERS = new Set(
  (
    'and but so then now first second third also therefore thus hence honestly frankly really simply seriously basically clearly ' +
    'obviously definitely absolutely today immediately or yet still otherwise next finally ultimately instead rather right well because since'
  ).split(' '),
);
/** Reported speech: "I think you must …" reads better as "I think it would be wise for you to …". */
const THINK_WORDS = new Set('think believe feel say said suggest that argue'.split(' '));

const ADVERB = String.raw`(?:absolutely\s+|really\s+|definitely\s+|simply\s+|just\s+|certainly\s+)?`;

/** Ordered: longer phrases first so a shorter rule never half-rewrites a longer one. */
const DIRECTIVES: DirectiveRule[] = [
  { pattern: /\bdo\s+not\s+under\s+any\s+circumstances\b,?/giu, negative: true, replacement: 'we recommend that you not', contextual: false },
  { pattern: /\bunder\s+no\s+circumstances\s+should\s+you\b/giu, negative: true, replacement: 'we recommend that you not', contextual: false },
  { pattern: /\byou(?:\s+are|'re|’re)\s+(?:required|obligated|obliged)\s+to\b/giu, negative: false, replacement: 'we recommend that you', contextual: true },
  { pattern: /\byou\s+have\s+no\s+(?:choice|option)\s+but\s+to\b/giu, negative: false, replacement: 'we recommend that you', contextual: true },
  { pattern: /\bit\s+is\s+mandatory\s+(?:that\s+you|for\s+you\s+to)\b/giu, negative: false, replacement: 'we recommend that you', contextual: false },
  { pattern: /\byou\s+should\s+(?:definitely|absolutely|certainly)\b/giu, negative: false, replacement: 'we suggest that you', contextual: true },
  { pattern: new RegExp(String.raw`\byou\s+${ADVERB}(?:must\s+not|mustn't|mustn’t)\b`, 'giu'), negative: true, replacement: 'we recommend that you not', contextual: true },
  { pattern: new RegExp(String.raw`\byou\s+${ADVERB}must\b`, 'giu'), negative: false, replacement: 'we recommend that you', contextual: true },
  { pattern: new RegExp(String.raw`\byou(?:'ve|’ve)?\s+${ADVERB}(?:have|got)\s+to\b`, 'giu'), negative: false, replacement: 'we recommend that you', contextual: true },
  { pattern: new RegExp(String.raw`\byou\s+${ADVERB}need\s+to\b`, 'giu'), negative: false, replacement: 'we recommend that you', contextual: true },
  // "Must hire a CFO." — an imperative opening a sentence, line or bullet (not "Must-have features").
  { pattern: /(?<=^|[.!?]\s+|^\s*[-*•]\s+)must(?=\s+[a-z])/gimu, negative: false, replacement: 'we recommend that you', contextual: false },
];

/** How the words before a "you must"-style phrase read: an order, an order in reported speech, or not an order at all. */
function directiveContext(text: string, offset: number): 'directive' | 'reported' | 'none' {
  const before = text.slice(0, offset);
  const word = /([A-Za-z'’]+)[ \t]*$/u.exec(before)?.[1]?.toLowerCase();
  if (word === undefined) return 'directive'; // start of text, or right after punctuation
  if (CLAUSE_OPENERS.has(word)) return 'directive';
  if (THINK_WORDS.has(word)) return 'reported';
  return 'none';
}

/** Keeps the match's capital at a sentence start: "You must" → "We recommend that you". */
function caseLike(original: string, replacement: string): string {
  return /^[A-Z]/u.test(original) ? replacement[0]!.toUpperCase() + replacement.slice(1) : replacement;
}

function lintOnce(text: string): { fixed: string; violations: string[] } {
  const violations: string[] = [];
  let fixed = text;
  for (const rule of DIRECTIVES) {
    fixed = fixed.replace(rule.pattern, (match: string, ...rest: unknown[]) => {
      // replace() passes (match, ...groups, offset, whole[, namedGroups]): the offset is the first number.
      const at = rest.findIndex((r) => typeof r === 'number');
      const offset = rest[at] as number;
      const whole = rest[at + 1] as string;
      let replacement = rule.replacement;
      if (rule.contextual) {
        const context = directiveContext(whole, offset);
        if (context === 'none') return match;
        if (context === 'reported') replacement = rule.negative ? 'it would be wise for you not to' : 'it would be wise for you to';
        // The verb is elided ("Honestly, you have to."): the advice has no object to carry.
        if (!/^\s+[A-Za-z]/u.test(whole.slice(offset + match.length))) replacement = rule.negative ? 'we recommend against it' : 'we recommend it';
      }
      violations.push(`directive language: "${match.trim().replace(/,$/u, '')}"`);
      return caseLike(match, replacement);
    });
  }
  return { fixed, violations };
}

/**
 * Finds directive language and rewrites it as advice, leaving the rest of the
 * text as written. Rewrites repeat until nothing matches (each one removes a
 * directive word, so this ends), which makes linting `fixed` again a no-op.
 */
export function lintAdvisory(text: string): { ok: boolean; violations: string[]; fixed: string } {
  const violations: string[] = [];
  let fixed = text;
  for (let i = 0; i < 10; i++) {
    const pass = lintOnce(fixed);
    if (!pass.violations.length) break;
    violations.push(...pass.violations);
    fixed = pass.fixed;
  }
  return { ok: violations.length === 0, violations, fixed };
}

// ───────────────────────────── disclaimers ─────────────────────────────

export type DisclaimerKind = 'legal' | 'medical' | 'financial' | 'safety' | 'irreversible';

/** Escalation disclaimers, in advisory language (they pass `lintAdvisory`). */
export const DISCLAIMERS: Record<DisclaimerKind, string> = {
  legal:
    'This is not legal advice; consider consulting a qualified lawyer before signing agreements, changing ownership or acting on legal or regulatory questions.',
  medical:
    'This is not medical advice; consider consulting a qualified health professional before making decisions that affect your health or anyone else’s.',
  financial:
    'This is not financial or investment advice and no returns are guaranteed; consider consulting a qualified financial advisor or accountant before committing funds.',
  safety:
    'This decision may have physical safety implications; consider consulting a qualified safety professional and the applicable safety rules before acting.',
  irreversible:
    'This decision is hard to reverse (a one-way door); consider taking time to review the alternatives and seeking professional advice before committing.',
};

/** Keyword rules per kind. Word-bounded, with lookarounds where business jargon reuses the word ("tech debt", "health check"). */
const KEYWORDS: Record<Exclude<DisclaimerKind, 'irreversible'>, RegExp> = {
  legal:
    /\b(?:contracts?|contractual|lawsuits?|su(?:e|ing|ed)|litigation|lawyers?|attorneys?|legal(?:ly)?|equity|compliance|compliant|regulations?|regulatory|regulators?|liabilit(?:y|ies)|trademarks?|patents?|copyrights?|intellectual property|gdpr|hipaa|terms of service|non-?competes?|ndas?|incorporat(?:e|ion|ing)|visas?|court|lawful|unlawful|illegal)\b/iu,
  medical:
    /\b(?:medical|medicine|medications?|diagnos(?:is|es|ed|e)|therap(?:y|ies|ist)|symptoms?|doctors?|physicians?|prescriptions?|illness(?:es)?|diseases?|surgery|pregnan(?:t|cy)|mental health|depression|anxiety disorder|clinical|patients?|(?<!(?:financial|business|company|customer|account|system|service|codebase|code|brand|team|market|pipeline|portfolio|product|cash|community|platform|server|site)\s)health(?!\s*[- ]?checks?)(?:care)?)\b/iu,
  financial:
    /\b(?:invest(?:s|ed|ing|ment|ments|or|ors)?|loans?|(?<!(?:tech|technical|design|code|ux|product)\s)debts?|retirement|(?<!(?:cost|time|labou?r)\s)savings|tax(?:es|ation)?|mortgages?|401\s?\(?k\)?|pension|stocks|stock market|shares|portfolio|crypto(?:currency|currencies)?|bitcoin|brokerage|dividends?|interest rates?|bankrupt(?:cy)?|life savings|credit card debt|borrow(?:ing|ed)?)\b/iu,
  safety:
    /\b(?:injur(?:y|ies|e|ed|ing)|hazards?|hazardous|weapons?|firearms?|unsafe|explosives?|toxic|poison(?:s|ous|ing)?|physical (?:safety|harm|risk)|safety risks?|workplace safety|heavy machinery|flammable|electrocution|radiation|chemicals?)\b/iu,
};

/** A sum of money in the text: "$50K", "€2,000", "10k dollars", "USD 5m". */
const MONEY = /(?:[$€£]\s?\d|\b\d[\d,.]*\s?(?:k|m|bn)?\s?(?:usd|eur|gbp|dollars?|euros?|pounds)\b|\b(?:usd|eur|gbp)\s?\d)/iu;

/**
 * Escalation disclaimers the advice needs, from keywords in the text and the
 * domains of the decision: legal (or the 'legal' domain), medical (or a
 * 'medical'/'health' domain), financial (or the 'finance' domain when the
 * text names a sum of money), physical safety, and irreversible for a
 * one-way door. At most one of each, always in that order.
 */
export function disclaimersFor(input: { text: string; domains: string[]; oneWayDoor: boolean }): { kind: DisclaimerKind; text: string }[] {
  const domains = new Set(input.domains.map((d) => d.toLowerCase()));
  const hit: Record<DisclaimerKind, boolean> = {
    legal: KEYWORDS.legal.test(input.text) || domains.has('legal'),
    medical: KEYWORDS.medical.test(input.text) || domains.has('medical') || domains.has('health'),
    financial: KEYWORDS.financial.test(input.text) || (domains.has('finance') && MONEY.test(input.text)),
    safety: KEYWORDS.safety.test(input.text) || domains.has('safety'),
    irreversible: input.oneWayDoor,
  };
  const order: DisclaimerKind[] = ['legal', 'medical', 'financial', 'safety', 'irreversible'];
  return order.filter((k) => hit[k]).map((kind) => ({ kind, text: DISCLAIMERS[kind] }));
}

// ───────────────────────────── request screen ─────────────────────────────

export type ScreenCategory = 'ok' | 'violence' | 'weapons' | 'illegal' | 'self_harm' | 'harassment';

interface ScreenRule {
  category: Exclude<ScreenCategory, 'ok'>;
  what: string;
  pattern: RegExp;
  /**
   * Tested on the sentence before the match: when it matches, the request is
   * about preventing, detecting or avoiding the act ("protect our users from
   * fraud", "anti-money laundering") and passes. Precision first; the
   * model-side screen sees whatever these rules let through.
   */
  unless: RegExp;
}

/** Words that turn a harmful phrase into prevention, detection, refusal or a question of legality. */
const CUE_WORDS = String.raw`avoid(?:s|ing)?|prevent(?:s|ing|ion)?|detect(?:s|ing|ion)?|stop(?:s|ping)?|protect(?:s|ing|ion)?|against|anti|without|not|never|don't|doesn't|won't|wouldn't|compliance|comply|accused|allegations?|victims?|report(?:s|ing)?|legal(?:ly)?|lawful(?:ly)?|investigat(?:e|ing|ion)|fight(?:ing)?|combat(?:ing)?|reduce|reducing|spot(?:ting)?|flag(?:ging)?|guard(?:ing)?|defend(?:ing)?|safe|recogni[sz]e`;
const PREVENTION_CUE = new RegExp(String.raw`(?:\b(?:${CUE_WORDS})\b|\banti-)`, 'iu');
/** Self-harm: only a negation just before the phrase ("I would never hurt myself") lets it pass. */
const NEGATED = /\b(?:not|never|won't|wouldn't|don't|didn't|isn't|aren't|am\s+not|no\s+longer)\b(?:\s+\S+){0,3}\s*$/iu;

/** Asking for a way to do something: "how do I", "help me", "I want to", "should we", "ways to". */
const INTENT = String.raw`(?:how\s+(?:do|can|could|would|should|might)\s+(?:i|we|one|someone|you)|how\s+to|(?:should|can|could|may|shall)\s+(?:i|we)|(?:i|we)\s+(?:want|plan|intend|need|wish|am\s+going|are\s+going|'m\s+going|'re\s+going)\s+to|(?:i'd|we'd|i\s+would|we\s+would)\s+like\s+to|help\s+(?:me|us)(?:\s+to)?|teach\s+(?:me|us)(?:\s+(?:how\s+)?to)?|show\s+(?:me|us)\s+how\s+to|(?:best|easiest|quickest|safest|cheapest)\s+way\s+to|ways?\s+to|steps?\s+to|instructions?\s+(?:for|to|on)|guide\s+to|recipe\s+for|tips?\s+(?:for|on))`;
/** Up to three words between the intent and the verb ("how do I quietly …"), none of them a prevention cue ("how do we stop people from …"). */
const GAP = String.raw`(?:\s+(?!(?:${CUE_WORDS})\b)\S+){0,3}?\s+`;

/** People (not companies, products or markets) as the object of a violent or harassing verb. */
const PERSONAL = String.raw`someone|somebody|anyone|a\s+person|people|him|her|my\s+(?:wife|husband|spouse|partner|girlfriend|boyfriend|ex|ex-\w+|neighbou?rs?|father|mother|dad|mom|mum|parents?|brother|sister|son|daughter|child|children|kids?|family|friends?|roommate|flatmate|teacher|stepfather|stepmother|classmates?)|(?:a|the|my|our)\s+(?:child|kid|baby|witness|police\s+officer|cop|judge|politician|senator|journalist)`;
const WORK = String.raw`my\s+(?:boss|manager|coworkers?|co-workers?|colleagues?|employees?|staff|cofounder|co-founder|business\s+partner|landlord|tenants?|investors?)`;
const PERSON = String.raw`(?:${PERSONAL}|${WORK})`;
/** What follows a person word and shows it is not one: "customer base", "employee morale", "partner program", "people's pain points". */
const NOT_A_PERSON_AFTER = String.raw`(?![-\w]|['’]s\b|\s+(?:base|segment|list|pool|morale|relationship|program(?:me)?|account|accounts|data|churn|acquisition|count|funnel|experience|engagement|satisfaction|retention|onboarding|turnover|feedback|survey|network|channel|ecosystem|portal|market|app|product|ideas?|objections?|problems?|pain\s+points?))`;

/** Weapon objects of "make/build/…", after only articles and plain adjectives ("a secret weapon for sales" stays a metaphor). */
const WEAPON_ADJECTIVES = String.raw`(?:\s+(?:a|an|the|some|my|our|own|homemade|home-made|improvised|untraceable|unregistered|small|simple|powerful|working|real|functional|deadly|lethal|crude|automatic|fully\s+automatic|\d+))*`;
const WEAPON = String.raw`(?:(?:(?:pipe|nail|car|dirty|letter|fertili[sz]er|petrol|gasoline)\s+)?bombs?|explosives?|explosive\s+devices?|ieds?|grenades?|molotov(?:\s+cocktails?)?|napalm|thermite|firearms?|handguns?|pistols?|rifles?|shotguns?|guns?|silencers?|weapons?|nerve\s+agents?|sarin|ricin|vx|mustard\s+gas|poison\s+gas|chemical\s+weapons?|bio-?weapons?|biological\s+weapons?)`;
/** What follows a weapon word when it names a business or a safety topic: "firearm safety training", "weapons-detection", "bomb-proof". */
const NOT_A_BUSINESS_AFTER = String.raw`(?![-\w]|\s+(?:safety|training|store|shop|business|range|retail\w*|dealers?\w*|detection|detectors?|company|companies|startup|industry|market|insurance|polic(?:y|ies)|laws?|storage|safes?|locks?|cleaning|accessor\w*|education|courses?|class(?:es)?|museum|app|software|inventory|compliance|licen[cs]\w*|permits?|manufacturers?|brand|proof|squads?|disposal))`;

const SCREEN_RULES: ScreenRule[] = [
  // Self-harm first: its reason points to help rather than only refusing.
  {
    category: 'self_harm',
    what: 'harming yourself',
    pattern:
      /\b(?:(?:kill|hurt|harm|cut|injure|starve|poison)\s+myself|end\s+my\s+(?:own\s+)?life|take\s+my\s+(?:own\s+)?life|(?:i\s+am|i'm|im|i\s+feel|i'm\s+feeling|feeling)\s+(?:so\s+|really\s+|very\s+)?suicidal|i\s+(?:want|wanna)\s+to\s+die|how\s+(?:to|do\s+i|can\s+i|should\s+i)\s+commit\s+suicide|(?:going|want|plan(?:ning)?)\s+to\s+commit\s+suicide|self[-\s]harm(?:ing)?\s+(?:tonight|again)|(?:don't|do\s+not)\s+want\s+to\s+(?:live|be\s+alive)\s+anymore|(?:overdose|od)\s+on\s+(?:my\s+)?(?:pills|meds|medication))\b/iu,
    unless: NEGATED,
  },
  {
    category: 'weapons',
    what: 'making or acquiring a weapon or explosive',
    pattern: new RegExp(
      String.raw`\b${INTENT}${GAP}(?:make|build|assemble|manufacture|construct|3d[-\s]?print|print|create|synthesi[sz]e|cook|brew|produce|mix|rig|detonate|buy|get|obtain|acquire)${WEAPON_ADJECTIVES}\s+${WEAPON}\b${NOT_A_BUSINESS_AFTER}`,
      'iu',
    ),
    unless: PREVENTION_CUE,
  },
  {
    category: 'weapons',
    what: 'making or using an explosive device or chemical weapon',
    pattern:
      /\b(?:(?:make|build|assemble|construct|plant|detonate|set\s+off)\s+(?:a|an|some|the)?\s*(?:pipe\s+bomb|car\s+bomb|nail\s+bomb|dirty\s+bomb|letter\s+bomb|molotov(?:\s+cocktail)?|explosive\s+device|ied)|(?:make|build|print|buy|get)\s+(?:a|an)?\s*(?:ghost|untraceable)\s+guns?|(?:make|produce|synthesi[sz]e|weaponi[sz]e)\s+(?:sarin|ricin|vx|nerve\s+agents?|anthrax|mustard\s+gas|chemical\s+weapons?|bio-?weapons?))\b/iu,
    unless: PREVENTION_CUE,
  },
  {
    category: 'violence',
    what: 'killing or seriously harming a person',
    pattern: new RegExp(
      String.raw`\b(?:kill|murder|poison|stab|strangle|kidnap|abduct|torture|maim|assassinate)\s+${PERSON}\b${NOT_A_PERSON_AFTER}`,
      'iu',
    ),
    unless: PREVENTION_CUE,
  },
  {
    category: 'violence',
    what: 'physically hurting a person',
    pattern: new RegExp(
      String.raw`\b${INTENT}${GAP}(?:physically\s+)?(?:hurt|harm|injure|attack|assault|beat\s+up|punch|run\s+over|break\s+the\s+legs\s+of)\s+${PERSON}\b${NOT_A_PERSON_AFTER}`,
      'iu',
    ),
    unless: PREVENTION_CUE,
  },
  {
    category: 'harassment',
    what: 'stalking, harassing or intimidating a person',
    pattern: new RegExp(
      String.raw`\b(?:stalk(?:ing)?|harass(?:ing)?|dox+(?:ing)?|blackmail(?:ing)?|bully(?:ing)?|cyberbully(?:ing)?|threaten(?:ing)?\s+to\s+(?:hurt|kill|harm|beat\s+up))\s+${PERSON}\b${NOT_A_PERSON_AFTER}`,
      'iu',
    ),
    unless: PREVENTION_CUE,
  },
  {
    category: 'harassment',
    what: 'covertly surveilling a person',
    pattern: new RegExp(
      String.raw`\b(?:(?:secretly|covertly)\s+(?:track|record|follow|monitor|film|photograph|read\s+the\s+messages\s+of)|spy(?:ing)?\s+on|install\s+(?:spyware|a\s+tracker|stalkerware)\s+on\s+the\s+phone\s+of|get\s+revenge\s+on)\s+(?:${PERSONAL})(?:'s\s+(?:phone|messages|texts|location|e-?mails?|car|computer|laptop|accounts?))?\b${NOT_A_PERSON_AFTER}`,
      'iu',
    ),
    unless: PREVENTION_CUE,
  },
  {
    category: 'harassment',
    what: 'sharing intimate images without consent or doxxing',
    pattern:
      /\b(?:revenge\s+porn|leak\s+(?:her|his|their|my\s+ex's)\s+(?:nudes|intimate\s+(?:photos|pictures|images|videos)|private\s+(?:photos|pictures|images|videos))|(?:publish|post|leak)\s+(?:her|his|their)\s+home\s+address)\b/iu,
    unless: PREVENTION_CUE,
  },
  {
    category: 'illegal',
    what: 'money laundering',
    pattern:
      /\b(?:launder(?:ing)?\s+(?:the\s+|my\s+|our\s+|some\s+|this\s+|dirty\s+|drug\s+|stolen\s+|illicit\s+)?(?:money|cash|funds|proceeds|profits|crypto|bitcoin|payments)|(?:set\s+up|run|start|build)\s+a\s+(?:money[-\s]laundering|laundering)\s+(?:scheme|operation|front|business)|front\s+(?:company|business)\s+(?:to|for)\s+launder(?:ing)?|clean\s+dirty\s+money)\b/iu,
    unless: PREVENTION_CUE,
  },
  {
    category: 'illegal',
    what: 'tax evasion',
    pattern: new RegExp(
      String.raw`\b(?:evad(?:e|ing)\s+(?:paying\s+)?(?:the\s+|my\s+|our\s+)?(?:income\s+|sales\s+|payroll\s+|corporate\s+|capital\s+gains\s+)?tax(?:es)?|(?:commit|get\s+away\s+with)\s+tax\s+(?:evasion|fraud)|${INTENT}${GAP}(?:commit|do|pull\s+off)\s+tax\s+evasion|hide\s+(?:\S+\s+){0,3}?(?:income|money|revenue|earnings|profits?|assets|cash)\s+(?:\S+\s+){0,3}?from\s+(?:the\s+)?(?:irs|tax\s*(?:man|authorities|office|collector)|hmrc|cra|ato|government|authorities|auditors?)|(?:not|never)\s+(?:report|declare)\s+(?:\S+\s+){0,2}?(?:income|cash|revenue|earnings)\s+to\s+(?:the\s+)?(?:irs|hmrc|cra|ato|tax\s*(?:man|authorities|office)))\b`,
      'iu',
    ),
    unless: PREVENTION_CUE,
  },
  {
    category: 'illegal',
    what: 'fraud',
    pattern: new RegExp(
      String.raw`\b(?:commit(?:ting)?\s+(?:insurance\s+|wire\s+|credit\s+card\s+|securities\s+|bank\s+|mail\s+|identity\s+|investment\s+|mortgage\s+|benefits?\s+|welfare\s+|accounting\s+)?fraud|(?:defraud|scam|swindle|con)\s+(?:my\s+|our\s+|the\s+)?(?:people|customers|clients|investors|elderly|seniors|users|the\s+bank|insurers?|insurance\s+compan(?:y|ies)|government|grandparents|victims|someone|somebody)|cook(?:ing)?\s+the\s+books|${INTENT}${GAP}(?:fake|falsify|forge|fabricate|doctor|backdate)\s+(?:the\s+|my\s+|our\s+|a\s+|some\s+)?(?:books|invoices?|receipts?|financials|financial\s+statements|revenue(?:\s+numbers)?|signatures?|documents|tax\s+returns?|bank\s+statements|audits?|pay\s*slips?|diplomas?|ids?|passports?|medical\s+records)|steal\s+(?:someone's|people's|their|a\s+person's)\s+identit(?:y|ies)|(?:use|buy)\s+stolen\s+(?:credit\s+cards?|card\s+numbers|identities)|${INTENT}${GAP}embezzle|(?:run|start|set\s+up)\s+a\s+(?:ponzi|pyramid)\s+scheme|(?:do|commit|get\s+away\s+with)\s+insider\s+trading|trade\s+on\s+insider\s+(?:information|info|tips))\b`,
      'iu',
    ),
    unless: PREVENTION_CUE,
  },
  {
    category: 'illegal',
    what: 'a clearly illegal act (bribery, extortion, theft, drug trafficking or hacking)',
    pattern: new RegExp(
      String.raw`\b${INTENT}${GAP}(?:bribe\s+(?:a|an|the)\s+(?:official|inspector|judge|officer|politician|regulator|customs)|extort|shoplift|steal\s+(?:from\s+(?:my|our|the)\s+(?:employer|company|customers|clients)|money|cash|goods|trade\s+secrets|customer\s+data|source\s+code)|smuggle|traffic\s+(?:drugs|people|humans|weapons)|sell\s+(?:cocaine|heroin|meth|fentanyl|illegal\s+drugs)|(?:hack|break)\s+into\s+(?:someone's|my\s+(?:ex|wife|husband|partner|competitor)'s|a\s+competitor's|their|his|her)|(?:cook|make|manufacture)\s+(?:meth|crystal\s+meth|fentanyl|heroin|cocaine))\b`,
      'iu',
    ),
    unless: PREVENTION_CUE,
  },
];

const REASONS: Record<Exclude<ScreenCategory, 'ok'>, (what: string) => string> = {
  self_harm: () =>
    'It sounds like you may be thinking about harming yourself. The board cannot deliberate on this, but you do not have to face it alone: ' +
    'please consider reaching out now to someone you trust, local emergency services, or a crisis line (for example 988 in the US, 116 123 in the UK and Ireland).',
  violence: (what) => `The request asks for help with ${what}. The board refuses to deliberate on violence against anyone.`,
  weapons: (what) => `The request asks for help with ${what}. The board refuses to help make or obtain weapons or explosives.`,
  harassment: (what) => `The request asks for help with ${what}. The board refuses to help target a person.`,
  illegal: (what) => `The request asks for help with ${what}, which is illegal. The board can deliberate on lawful alternatives instead.`,
};

/** Straight apostrophes and single spaces, so one set of patterns fits pasted text. */
function normalize(text: string): string {
  return text.replace(/[‘’ʼ]/gu, "'").replace(/[ \t\u00a0]+/gu, ' ');
}

/** Start of the sentence holding `index`: after the last ., !, ? or line break before it. */
function sentenceStart(text: string, index: number): number {
  let i = index - 1;
  while (i >= 0 && !'.!?\n'.includes(text[i]!)) i -= 1;
  return i + 1;
}

/**
 * Deterministic pre-screen run before any model call. Favours precision:
 * only clearly illegal or harmful requests are refused (making weapons,
 * hurting someone, laundering money, evading taxes, fraud, stalking or
 * harassing a person, self-harm); ordinary business language ("kill a
 * feature", "attack the market", "fire a customer", "tax strategy") passes,
 * and the model-side screen catches what the patterns miss.
 */
export function screenRequest(text: string): { allowed: boolean; category: ScreenCategory; reason: string } {
  const t = normalize(text);
  for (const rule of SCREEN_RULES) {
    const re = new RegExp(rule.pattern.source, `${rule.pattern.flags.replace('g', '')}g`);
    for (const m of t.matchAll(re)) {
      if (rule.unless.test(t.slice(sentenceStart(t, m.index), m.index))) continue;
      return { allowed: false, category: rule.category, reason: REASONS[rule.category](rule.what) };
    }
  }
  return { allowed: true, category: 'ok', reason: 'No clearly illegal or harmful request detected.' };
}
