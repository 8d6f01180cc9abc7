/**
 * Deterministic PII scrubbing, run on every text BEFORE it is stored in
 * cross-session memory (seed 000, "Privacy": no names, company names,
 * financials). A model pass runs second, elsewhere, for what patterns cannot
 * see; `findPii` then checks that pass left nothing these patterns recognise.
 *
 * Placeholders: [EMAIL] [URL] [PHONE] [HANDLE] [AMOUNT] [FIGURE] and numbered
 * [PERSON_n] / [COMPANY_n] — the same entity gets the same number within one
 * call so a summary still reads ("[PERSON_1] wants 30%… [PERSON_1] also…").
 * Placeholders are bracketed capitals with no lower-case letters and no digit
 * a pattern can reach, so anonymising twice changes nothing.
 *
 * Decisions (documented here because tests pin them):
 * - Numbers: memory exists to carry reasoning, so what makes an argument
 *   survives and what pins a party goes. Every amount of money is replaced
 *   whatever its size, and counts above 10 or carrying a magnitude (200
 *   customers, 12k users, 5 million visits) become [FIGURE]: those are one
 *   business's exact figures. Kept: percentages and thresholds ("utilisation
 *   ≤ 75%", "30% churn": a rule reads the same for anyone), ratios and
 *   multiples ("3x", "20x", "2:1"), durations and positions in time ("12
 *   months runway", "an 18-month LTV", "weeks 10-13", a series named once:
 *   "days 30, 60 and 90", "30/60/90-day"), and numbers ≤ 10.
 *   A range is one figure: both ends kept or both replaced. Numbers inside
 *   words (B2B, Q3, sp1) are not figures. Years and dates become [FIGURE]:
 *   they pin a timeline. Units stay outside the placeholder ("[AMOUNT]/month").
 * - Well-known platforms and tools (Google Ads, Shopify, Stripe, Reddit,
 *   PostgreSQL…) are not the user's PII: they are never replaced by the
 *   pattern passes, only when the caller lists them in `known.companies`.
 * - People are found by: known names (and the parts of a known or detected
 *   full name, as aliases, case-sensitively), honorifics ("Dr. Voss"),
 *   relationship cues ("my co-founder Jane Smith", "Jane, my CTO",
 *   "a developer named Raj"), and a compact list of common first names —
 *   alone or followed by a capitalised surname. The list leaves out names
 *   that are also ordinary words, places or products (Will, May, Grace,
 *   Jordan, Austin, Kelly, Alexa, Claude…), so "Product Market Fit" or
 *   "Will Customers pay" stay; such names are still caught by the cues.
 * - Companies are found by legal suffix (Acme Inc, Voss GmbH, Tesco plc),
 *   by organisation words after a distinctive name (Sequoia Capital, but not
 *   "Venture Capital"), by `known.companies` anywhere (so "at Acme", "for
 *   Acme" are covered), and by ownership cues ("my startup Habitly", "a
 *   company called Foo"). A company also claims its distinctive first word.
 * - Dates (2024-03-01, 05.03.2024) are figures: they pin a user's timeline.
 * - Single-word known entries match case-sensitively (a known "Will" must not
 *   eat the verb "will"); multi-word ones case-insensitively.
 * - `known.keep` (an extension) lists words never replaced, e.g. the board's
 *   persona names when scrubbing an expert's own summary.
 * - `replacements` has one entry per replaced occurrence and deliberately
 *   omits the original value, so it can be logged.
 * Not covered (left to the model pass): spelled-out numbers, local 7-digit
 *   phone numbers (too close to ranges like 100-1000), street addresses.
 */

export type PiiKind = 'email' | 'phone' | 'url' | 'person' | 'company' | 'amount' | 'number' | 'handle';

export interface KnownEntities {
  names?: string[];
  companies?: string[];
  /** Words or phrases never replaced (e.g. persona names). */
  keep?: string[];
}

export interface Replacement {
  kind: PiiKind;
  placeholder: string;
}

export interface Anonymised {
  text: string;
  replacements: Replacement[];
}

// Character classes (with the `u` flag): a "word character" includes any letter.
const NOT_BEFORE = String.raw`(?<![\p{L}\p{N}_])`;
const NOT_AFTER = String.raw`(?![\p{L}\p{N}_])`;
/** A capitalised name word: "Jane", "O'Brien", "McDonald", "García", "Smith-Jones" — never a possessive "'s". */
const NAME_WORD = String.raw`\p{Lu}(?:\p{Ll}+(?:\p{Lu}\p{Ll}+)*|['’]\p{Lu}\p{Ll}+)(?:-\p{Lu}\p{Ll}+)*`;
/** One or two name words, optionally with a particle: "Jane", "Jane Smith", "Ludwig van Beethoven". */
const NAME = String.raw`${NAME_WORD}(?:[ ](?:(?:van|von|de|da|del|der|di|le|la|du|bin|al|ter)[ ])?${NAME_WORD})?`;

/**
 * Common first names, international, curated to exclude ordinary words,
 * places and product names (see the header): no Will, May, Grace, Jordan,
 * Austin, Victoria, Kelly, Taylor, Julia, Alexa, Claude, Zara, nor the
 * Diego/Jose/Louis of San Diego, San Jose, St. Louis. Case-sensitive.
 */
const FIRST_NAMES = new Set(
  `James John Robert Michael David Richard Joseph Thomas Charles Christopher Daniel Matthew Anthony Steven Paul
  Andrew Joshua Kevin Brian George Timothy Ronald Jason Jeffrey Ryan Jacob Gary Nicholas Eric Jonathan Stephen
  Larry Justin Scott Brandon Benjamin Samuel Gregory Alexander Patrick Dennis Peter Tyler Aaron Adam Nathan
  Henry Zachary Douglas Kyle Noah Ethan Jeremy Keith Roger Sean Gerald Carl Harold Arthur Lawrence Jesse Dylan
  Bryan Joe Billy Bruce Albert Gabriel Logan Alan Wayne Elijah Randy Roy Vincent Ralph Russell Bobby Philip
  Tom Tim Jim Ben Dan Nick Alex Chris Matt Mike Steve Dave Tony Andy Sam Raj Liam Oliver Lucas Harry
  Mary Patricia Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Lisa Nancy Betty Sandra Margaret Ashley
  Kimberly Emily Donna Michelle Amanda Melissa Deborah Stephanie Rebecca Sharon Laura Cynthia Amy Kathleen Angela
  Shirley Brenda Emma Anna Pamela Nicole Samantha Katherine Christine Helen Debra Rachel Carolyn Janet Maria
  Catherine Heather Diane Olivia Julie Joyce Ruth Lauren Christina Joan Evelyn Judith Andrea Hannah Megan Cheryl
  Jacqueline Martha Teresa Gloria Sara Janice Kathryn Abigail Sophia Frances Jean Alice Judy Isabella
  Denise Danielle Marilyn Natalie Theresa Diana Doris Kayla Lori Marie Jane Chloe Mia Ava Zoe
  Lucy Nina Sofia Sophie Elena Clara Eva Ingrid Astrid Freya Liz Kate Katie Jen Jess Becky Maya Priya Arjun Rahul
  Anil Sunil Amit Vikram Deepak Ravi Sanjay Ananya Aisha Fatima Omar Ahmed Mohammed Muhammad Hassan Tariq Yusuf
  Kwame Kofi Chidi Ngozi Hiroshi Yuki Kenji Haruto Sakura Carlos Miguel Luis Javier Pablo Sergio
  Alejandro Lucia Carmen Isabel Mateo Giulia Marco Luca Giuseppe Francesca Pierre Camille Hans Klaus Lukas Leon
  Felix Anja Katrin Sven Lars Erik Nils Maja Olga Ivan Dmitri Sergei Natasha Anastasia Tatiana Mikhail Pavel
  Piotr Tomasz Arjun Elena Sofia Hannah`
    .split(/\s+/)
    .filter(Boolean),
);

/** Capitalised words that follow a first name in business text without being a surname. */
const NOT_SURNAMES = new Set(
  `Ads App Apps Pro Plus Premium Cloud Studio Studios Labs Capital Ventures Partners Group Holdings Media Software
  Inc Corp Ltd LLC Plan Platform Store Shop Market Marketing Sales Team Product Products Mobile Web Analytics
  Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April June July August September
  October November December`
    .split(/\s+/)
    .filter(Boolean),
);

/** Organisation words: "Sequoia Capital", "Brightline Labs" name a firm, and so does a "person" cue followed by one. */
const ORG_WORDS = new Set(
  'Capital Ventures Partners Holdings Labs Studios Technologies Consulting'.split(' '),
);
/**
 * Generic words that, before an organisation word, make a category rather
 * than a name: "Venture Capital", "Growth Partners", "Design Studios".
 */
const GENERIC_ORG_LEAD = new Set(
  `Venture Private Seed Growth Angel Working Human Social Digital Marketing Sales Customer Product Design Data
  Software Tech Technology Creative Strategic Business Financial Management Innovation Research Startup Early
  Late Stage Equity Debt Risk Limited General Channel Implementation Integration Agency Media Bank United
  American British European National International Global First New North South East West Central Royal`
    .split(/\s+/)
    .filter(Boolean),
);

/** Capitalised function words that can start a sentence before a company name. */
const LEADING_STOP = new Set(
  `The A An We I Our My Their His Her Its At For With From And But So In On To By Of Or If As Yesterday Today
  Tomorrow Last Next This That These Those Both Also Then When While After Before Since Should Would Could Can
  Did Does Do Is Was Are Were Hi Hello Dear Thanks Sadly Recently Currently`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Well-known platforms, tools and public companies: naming them describes
 * the user's situation ("ads on Google", "a Shopify integration"), not the
 * user. Compared case-insensitively against the whole detected name.
 */
const PUBLIC_BRANDS = new Set(
  `google meta facebook instagram linkedin twitter x tiktok youtube reddit shopify stripe amazon aws apple
  microsoft salesforce hubspot slack notion figma zapier openai anthropic github gitlab vercel heroku netlify
  postgresql postgres mysql mongodb redis python rust etsy ebay airbnb uber substack mailchimp intercom zendesk
  atlassian jira trello asana canva webflow wordpress wix squarespace quickbooks xero paypal square upwork fiverr
  discord whatsapp telegram zoom dropbox oracle ibm sap adobe nvidia tesla netflix spotify twilio cloudflare
  digitalocean azure gcp firebase supabase docker kubernetes`
    .split(/\s+/)
    .filter(Boolean)
    .concat(['google ads', 'meta ads', 'facebook ads', 'product hunt', 'hacker news', 'app store', 'play store', 'google play', 'y combinator']),
);

const RELATION_ROLES = String.raw`(?:(?:ex-|former |new |current |potential |prospective |future |technical |business )?(?:co-?founder|cofounder|partner|wife|husband|spouse|girlfriend|boyfriend|fianc[eé]e?|boss|manager|CEO|CTO|COO|CFO|CMO|VP|investor|angel|advisor|adviser|mentor|coach|friend|colleague|employee|developer|dev|designer|contractor|freelancer|lawyer|attorney|accountant|bookkeeper|brother|sister|father|mother|dad|mom|mum|son|daughter|uncle|aunt|cousin|client|customer|assistant|intern|engineer|salesperson|sales rep|marketer|recruiter|candidate|hire|landlord|banker|therapist|doctor|teacher|neighbou?r))`;

/** Bare two-letter forms (SA, AB, NV, BV) are left out: "Run AB tests" is not a company. */
const COMPANY_SUFFIX = String.raw`(?:Inc\.?|Incorporated|LLC|L\.L\.C\.|Ltd\.?|Limited|GmbH|Corp\.?|Corporation|Co\.|S\.A\.|AG|plc|PLC|LLP|Pty(?: Ltd\.?)?|B\.V\.|N\.V\.|SARL|S\.r\.l\.)`;
const COMPANY_WORD = String.raw`\p{Lu}[\p{L}\p{N}&]*(?:['’\-][\p{L}\p{N}]{2,})*`;
/** A word of a company's name, never a suffix itself ("Google LLC and Stripe Inc." is two names). */
const COMPANY_NAME_WORD = String.raw`(?!${COMPANY_SUFFIX}(?![\p{L}\p{N}]))${COMPANY_WORD}`;
/** A name after an ownership cue must have lower case in it: "my SaaS MRR" names nothing. */
const CUE_WORD = String.raw`(?=\p{Lu}[\p{L}\p{N}]*\p{Ll})\p{Lu}[\p{L}\p{N}]*(?:['’\-][\p{L}\p{N}]{2,})*`;

const TLDS = 'com|io|ai|co|net|org|dev|app|xyz|me|so|sh|gg|tv|us|uk|de|fr|es|it|nl|eu|ca|au|in|info|biz|tech|store|shop|site|online|cloud|ly|to|fm';

const NUM = String.raw`(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`;
const MULT = String.raw`(?:k|K|mm|MM|m|M|mn|bn|BN|b|B|thousand|million|billion|trillion)`;
const CURRENCY_CODE = 'USD|EUR|GBP|CAD|AUD|NZD|CHF|JPY|INR|SGD|SEK|NOK|DKK';
/** Dollar-sign currencies with their prefix (R$ the Brazilian real, HK$, S$, NT$, MX$): a bare "$" left "R[AMOUNT]". */
const CURRENCY_SYMBOL = String.raw`(?:US|CA|AU|NZ|HK|NT|MX|A|C|R|S)?\$|€|£|¥|₹`;
const CURRENCY_WORD = String.raw`dollars?|euros?|pounds?|bucks|quid|grand|rupees?|yen`;
/**
 * The upper end of a money range: "-15K", "–$50", " - $50"; spaced only with its own symbol, so "costs $5 - 3 of
 * them" keeps its count.
 */
const AMOUNT_RANGE_END = String.raw`(?:(?:[-–](?:${CURRENCY_SYMBOL})?|[ ][-–][ ](?:${CURRENCY_SYMBOL}))${NUM}(?:[ ]?${MULT}(?![\p{L}\p{N}]))?(?![\p{N}]|[.,]\d))?`;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const norm = (s: string) => s.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
const isPublicBrand = (name: string) => PUBLIC_BRANDS.has(norm(name));
const numericValue = (s: string) => Number(s.replace(/,/g, ''));
const firstWord = (name: string) => name.split(' ')[0] ?? '';
/** Words a cue can be followed by that name nobody: "my co-founder The…", "my dev Team". */
const notAName = (name: string) =>
  LEADING_STOP.has(firstWord(name)) || NOT_SURNAMES.has(firstWord(name)) || isPublicBrand(name) || isPublicBrand(firstWord(name));

type Entity = 'person' | 'company';

/** One call's numbering: the same entity keeps its placeholder, and so do the parts of its name. */
class Registry {
  private readonly ids = new Map<string, { kind: Entity; placeholder: string }>();
  private readonly next: Record<Entity, number>;
  /** Name parts ("Smith" of "Jane Smith"), as written, for the final alias pass. */
  readonly aliases = new Map<string, { kind: Entity; placeholder: string }>();
  readonly replacements: Replacement[] = [];

  constructor(text: string) {
    // Continue after placeholders already in the text so a later pass never reuses a number.
    const max = (label: string) =>
      [...text.matchAll(new RegExp(String.raw`\[${label}_(\d+)\]`, 'g'))].reduce((n, m) => Math.max(n, Number(m[1])), 0);
    this.next = { person: max('PERSON') + 1, company: max('COMPANY') + 1 };
  }

  entity(kind: Entity, name: string): string {
    const key = `${kind}:${norm(name)}`;
    let placeholder = this.ids.get(key)?.placeholder;
    if (placeholder === undefined) {
      placeholder = `[${kind === 'person' ? 'PERSON' : 'COMPANY'}_${this.next[kind]++}]`;
      this.ids.set(key, { kind, placeholder });
    }
    this.replacements.push({ kind, placeholder });
    return placeholder;
  }

  /**
   * A detected multi-word name also claims its parts, so "Jane Smith … Smith
   * said … Jane" are one person; a company claims its name without suffix.
   */
  alias(kind: Entity, name: string, placeholder: string): void {
    const words = name.split(' ');
    const distinctive = (p: string) =>
      p.length >= 3 && /^\p{Lu}/u.test(p) && !LEADING_STOP.has(p) && !NOT_SURNAMES.has(p) && !GENERIC_ORG_LEAD.has(p) && !ORG_WORDS.has(p);
    // A company also claims its distinctive first word ("Sequoia" of "Sequoia Capital"); a person every name part.
    const parts = kind === 'company' ? [name, ...(words.length > 1 && distinctive(words[0]!) ? [words[0]!] : [])] : words.filter(distinctive);
    for (const part of parts) {
      if (isPublicBrand(part)) continue;
      const key = `${kind}:${norm(part)}`;
      if (!this.ids.has(key)) this.ids.set(key, { kind, placeholder });
      if (!this.aliases.has(part)) this.aliases.set(part, { kind, placeholder });
    }
  }

  fixed(kind: PiiKind, placeholder: string): string {
    this.replacements.push({ kind, placeholder });
    return placeholder;
  }
}

/** Hides `keep` phrases behind private-use sentinels that no pattern matches (no letters, no digits). */
function protect(text: string, keep: string[]): { text: string; restore: (s: string) => string } {
  const phrases = [...new Set(keep.map((k) => k.trim()).filter((k) => k.length >= 2))]
    .sort((a, b) => b.length - a.length)
    .slice(0, 0xf00);
  if (phrases.length === 0) return { text, restore: (s) => s };
  const sentinel = (i: number) => `\uE000${String.fromCharCode(0xe100 + i)}\uE001`;
  let out = text;
  phrases.forEach((p, i) => {
    out = out.replace(new RegExp(`${NOT_BEFORE}${escapeRe(p)}${NOT_AFTER}`, 'gu'), sentinel(i));
  });
  return {
    text: out,
    restore: (s) => s.replace(/\uE000([\uE100-\uEFFF])\uE001/gu, (_, c: string) => phrases[c.charCodeAt(0) - 0xe100] ?? ''),
  };
}

/** Known entries: single words case-sensitively, multi-word phrases case-insensitively (see the header). */
function knownPatterns(entries: string[]): RegExp[] {
  const clean = [...new Set(entries.map((e) => e.trim().replace(/\s+/g, ' ')).filter((e) => e.length >= 2))].sort(
    (a, b) => b.length - a.length,
  );
  const single = clean.filter((e) => !e.includes(' ')).map(escapeRe);
  const multi = clean.filter((e) => e.includes(' ')).map((e) => escapeRe(e).replace(/ /g, String.raw`\s+`));
  const build = (alts: string[], flags: string) => (alts.length ? [new RegExp(`${NOT_BEFORE}(?:${alts.join('|')})${NOT_AFTER}`, flags)] : []);
  return [...build(multi, 'giu'), ...build(single, 'gu')];
}

// --- The patterns, in the order anonymise applies them. ---

const RE = {
  url: /\b(?:https?:\/\/|www\.)[^\s<>"'`\])]+/giu,
  email: /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu,
  /** Bare domains need a listed, lower-case TLD: "Acme.io" is a site, "ASP.NET" and "Node.js" are not. */
  domain: new RegExp(
    String.raw`(?<![\p{L}\p{N}_@.\/\-])(?:[\p{L}\p{N}](?:[\p{L}\p{N}\-]{0,61}[\p{L}\p{N}])?\.)+(?:${TLDS})(?![\p{L}\p{N}_\-]|\.[\p{L}\p{N}])(?:\/[^\s<>"'\])]*)?`,
    'gu',
  ),
  handle: /(?<![\p{L}\p{N}_@.])@[A-Za-z0-9_](?:[A-Za-z0-9_.]{0,28}[A-Za-z0-9_])?|(?<![\p{L}\p{N}_/])u\/[A-Za-z0-9_-]{3,20}/gu,
  /** Dates go before phones: "05.03.2024" has a phone's shape. */
  date: /(?<![\p{L}\p{N}_.,/-])(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2}))(?![\p{L}\p{N}_]|[.,/-]\d)/gu,
  /**
   * International (+…), bracketed area code, trunk-prefixed national
   * (0…, as in the UK, France, Germany) and US 3-3-4 shapes; the digit count
   * (7-15, E.164) is checked after. Never right after a currency sign.
   */
  phone: new RegExp(
    [
      String.raw`\+\d{1,3}(?:[ .\-]?(?:\(\d{1,5}\)|\d{1,5})){2,6}`,
      String.raw`\(\d{2,5}\)[ .\-]?\d{2,4}(?:[ .\-]?\d{2,4}){1,3}`,
      String.raw`0\d{1,4}(?:[ .\-]?\d{2,4}){2,5}`,
      String.raw`\d{3}[ .\-]\d{3}[ .\-]\d{4}`,
    ]
      .map((alt) => String.raw`(?<![\p{L}\p{N}_$€£¥.,\/+\-])${alt}(?![\p{L}\p{N}_%]|[.,]\d)`)
      .join('|'),
    'gu',
  ),
  /**
   * $12K, US$5, €5m, £300 (the "/month" stays outside), USD 12,000, 12,000 USD, 50k dollars. A range after a symbol
   * or code is one amount ("$13.5-15K", "$20-$50"): its bare upper end is money too, not a count.
   */
  amount: new RegExp(
    [
      String.raw`(?:${CURRENCY_SYMBOL})[ ]?${NUM}(?:[ ]?${MULT}(?![\p{L}\p{N}]))?${AMOUNT_RANGE_END}`,
      String.raw`(?<![\p{L}])(?:${CURRENCY_CODE})[ ]?${NUM}(?:[ ]?${MULT}(?![\p{L}\p{N}]))?${AMOUNT_RANGE_END}`,
      String.raw`(?<![\p{L}\p{N}_.,])${NUM}(?:[ ]?${MULT})?[ ]?(?:(?:${CURRENCY_SYMBOL})|(?:${CURRENCY_CODE}|${CURRENCY_WORD})(?![\p{L}]))`,
    ].join('|'),
    'gu',
  ),
  companySuffix: new RegExp(
    String.raw`${NOT_BEFORE}(${COMPANY_NAME_WORD}(?:[ ](?:&|of|${COMPANY_NAME_WORD})){0,3}),?[ ]((?:&[ ]Co\.?|${COMPANY_SUFFIX})(?:,?[ ]${COMPANY_SUFFIX})?)(?![\p{L}\p{N}_])`,
    'gu',
  ),
  /** "Sequoia Capital", "Brightline Labs": a distinctive name before an organisation word. */
  companyOrg: new RegExp(String.raw`${NOT_BEFORE}(${NAME_WORD}(?:[ ]${NAME_WORD}){0,2})[ ](${[...ORG_WORDS].join('|')})${NOT_AFTER}`, 'gu'),
  companyCue: new RegExp(
    String.raw`(\b(?:[Mm]y|[Oo]ur)[ ](?:own[ ])?(?:company|startup|business|firm|agency|brand|studio|shop|store|app|product|SaaS|platform|tool|side project)[ ,]+(?:(?:called|named)[ ])?|\b(?:company|startup|business|firm|agency|brand|app|product|tool)[ ](?:called|named)[ ])(${CUE_WORD}(?:[ ]${CUE_WORD}){0,2})${NOT_AFTER}`,
    'gu',
  ),
  honorific: new RegExp(String.raw`\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame)\.?[ ](${NAME})${NOT_AFTER}`, 'gu'),
  relationCue: new RegExp(
    String.raw`(\b(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir)[ ]${RELATION_ROLES}s?,?[ ]|\b${RELATION_ROLES}s?[ ](?:named|called)[ ]|\b[Mm]y name is[ ])(${NAME})${NOT_AFTER}`,
    'gu',
  ),
  apposition: new RegExp(String.raw`${NOT_BEFORE}(${NAME})(,[ ](?:[Mm]y|[Oo]ur)[ ]${RELATION_ROLES}${NOT_AFTER})`, 'gu'),
  /** Scanned word by word (see replaceFullNames), so "Hi Sarah Jones" still finds "Sarah Jones". */
  fullName: new RegExp(String.raw`${NOT_BEFORE}(${NAME_WORD})[ ](${NAME_WORD})${NOT_AFTER}`, 'gu'),
  word: new RegExp(String.raw`${NOT_BEFORE}${NAME_WORD}${NOT_AFTER}`, 'gu'),
  /**
   * A range ("8-12", "10–13": one figure, kept or replaced whole), or a
   * numeral with its multiplier and room for a trailing "x" ("20x"), or a data
   * size ("180GB"); not inside words (B2B, Q3, sp1, PERSON_1).
   */
  figure: new RegExp(
    String.raw`(?<![\p{L}\p{N}_.,])(?:(${NUM})[ ]?[-–][ ]?(${NUM})(?![\p{L}\p{N}_]|[.,]\d)|(${NUM})(?:[ ]?(${MULT}|[KMGT]i?B))?(?=[xX×](?![\p{L}\p{N}_])|(?![\p{L}\p{N}_]|[.,]\d)))`,
    'gu',
  ),
};

/** A pair of capitalised words is a person when it starts with a listed first name and the second is no business word. */
function looksLikePerson(first: string, last: string): boolean {
  return FIRST_NAMES.has(first) && !NOT_SURNAMES.has(last) && !LEADING_STOP.has(last) && !isPublicBrand(last);
}

/** Like String.replace over `re`, but a non-match retries from the second word instead of skipping it. */
function replaceFullNames(text: string, fn: (first: string, last: string) => string | null): string {
  const re = new RegExp(RE.fullName.source, RE.fullName.flags);
  let out = '';
  let pos = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const first = m[1]!;
    const replacement = fn(first, m[2]!);
    if (replacement === null) {
      re.lastIndex = m.index + first.length + 1;
      continue;
    }
    out += text.slice(pos, m.index) + replacement;
    pos = m.index + m[0].length;
    re.lastIndex = pos;
  }
  return out + text.slice(pos);
}

const CONNECTORS = new Set(['&', 'of']);

/**
 * Drops capitalised function words a pattern swallowed at the start of a
 * sentence ("Yesterday Acme Ltd" → "Acme"), and a dangling connector at the
 * end ("Smith & Co." → "Smith"); `lead` is given back to the text.
 */
function trimName(name: string): { lead: string; name: string } {
  const words = name.split(' ');
  let i = 0;
  while (i < words.length - 1 && (LEADING_STOP.has(words[i]!) || CONNECTORS.has(words[i]!))) i++;
  let j = words.length;
  while (j > i + 1 && CONNECTORS.has(words[j - 1]!)) j--;
  return { lead: words.slice(0, i).map((w) => w + ' ').join(''), name: words.slice(i, j).join(' ') };
}

const TIME_UNIT = String.raw`(?:second|minute|hour|day|week|month|quarter|year|round|sprint)s?`;
/** A percentage, a ratio or multiple, or a duration or position in time, just after the figure. */
const KEPT_AFTER = new RegExp(String.raw`^(?:[ ]?(?:%|percent\b|per[ ]cent\b|pp\b)|[xX×](?![\p{L}\p{N}_])|:\d|[ -]?${TIME_UNIT}\b)`, 'u');
/** "weeks 10-13", "month 18", "round 12", "day-90": a position in time, just before the figure. */
const KEPT_BEFORE = new RegExp(String.raw`\b${TIME_UNIT}[ -]$`, 'iu');
/**
 * "30/60/90-day checks", "days 30, 60 and 90": positions in time listed once with their unit. Each number is kept as
 * the unit's own would be ("day 30"); a relay helper's memory read "[FIGURE]-day marks" and "day 30, [FIGURE] and [FIGURE]".
 * Guarded both ways, since a kept count is a leak: up to three digits (no years), and a series led by its unit must end
 * the clause ("in month 3, 450 customers churned" is a position and a count).
 */
const TIME_SERIES = new RegExp(String.raw`(?<![\p{L}\p{N}_.,])(?:\b${TIME_UNIT}[ -])?\d{1,3}(?:(?:[ ]?\/[ ]?|,[ ]?|[ ](?:and|or|to)[ ])\d{1,3}(?![\p{N}.,]\d))+(?:[ -]?${TIME_UNIT}\b)?`, 'giu');
const UNIT_FIRST = new RegExp(String.raw`^${TIME_UNIT}[ -]`, 'iu');
const UNIT_LAST = new RegExp(String.raw`\d[ -]?${TIME_UNIT}$`, 'iu');
const CLAUSE_END = /^(?:[.,;:!?)\]]|\s*$)/;
function timeSeries(text: string): [number, number][] {
  const out: [number, number][] = [];
  for (const m of text.matchAll(TIME_SERIES)) {
    const end = m.index + m[0].length;
    if (UNIT_LAST.test(m[0]) || (UNIT_FIRST.test(m[0]) && CLAUSE_END.test(text.slice(end, end + 2)))) out.push([m.index, end]);
  }
  return out;
}

/** "30/60/90" matches the date shape but is no date: a day-month or month-day pair must be one (a year may follow). */
function plausibleDate(m: string): boolean {
  const [a, b] = m.split(/[./-]/).map(Number) as [number, number];
  if (/^\d{4}-/.test(m)) return true;
  return (a >= 1 && b >= 1 && a <= 31 && b <= 12) || (a >= 1 && b >= 1 && a <= 12 && b <= 31);
}

/** "≤ 75", "at least 30": a threshold only when a percentage follows, so the percentage rule covers it. */
const kept = (text: string, offset: number, length: number) =>
  KEPT_AFTER.test(text.slice(offset + length, offset + length + 12)) || KEPT_BEFORE.test(text.slice(Math.max(0, offset - 12), offset)) || /\d:$/.test(text.slice(Math.max(0, offset - 2), offset));

/**
 * Replaces PII with placeholders (see the header for what counts and why).
 * Pure and deterministic; anonymise(anonymise(x).text).text === anonymise(x).text.
 */
export function anonymise(text: string, known: KnownEntities = {}): Anonymised {
  const guard = protect(text, known.keep ?? []);
  let out = guard.text;
  const reg = new Registry(out);

  // Contact details first: an email's domain must not become a URL, a URL's digits not a phone.
  out = out.replace(RE.url, (m) => reg.fixed('url', '[URL]') + (/[.,;:!?]+$/.exec(m)?.[0] ?? ''));
  out = out.replace(RE.email, () => reg.fixed('email', '[EMAIL]'));
  out = out.replace(RE.domain, () => reg.fixed('url', '[URL]'));
  out = out.replace(RE.handle, () => reg.fixed('handle', '[HANDLE]'));
  out = out.replace(RE.date, (m) => (plausibleDate(m) ? reg.fixed('number', '[FIGURE]') : m));
  out = out.replace(RE.phone, (m) => {
    const digits = m.replace(/\D/g, '').length;
    return digits >= 7 && digits <= 15 ? reg.fixed('phone', '[PHONE]') : m;
  });
  out = out.replace(RE.amount, () => reg.fixed('amount', '[AMOUNT]'));

  // Companies before people: "Jane Smith Consulting Ltd" is a firm.
  const company = (name: string) => {
    const placeholder = reg.entity('company', name);
    reg.alias('company', name, placeholder);
    return placeholder;
  };
  out = out.replace(RE.companySuffix, (m: string, name: string, suffix: string, offset: number, whole: string) => {
    const t = trimName(name);
    if (isPublicBrand(t.name) || LEADING_STOP.has(t.name)) return m;
    // "Acme Corp." at the end of a sentence: the dot also ended the sentence, so give it back.
    const rest = whole.slice(offset + m.length);
    const stop = suffix.endsWith('.') && /^(?:\s+\p{Lu}|\s*$)/u.test(rest) ? '.' : '';
    return t.lead + company(t.name) + stop;
  });
  for (const re of knownPatterns(known.companies ?? [])) out = out.replace(re, (m) => company(m));
  out = out.replace(RE.companyOrg, (m, name: string, org: string) => {
    const t = trimName(name);
    const words = t.name.split(' ');
    if (words.some((w) => GENERIC_ORG_LEAD.has(w) || LEADING_STOP.has(w)) || isPublicBrand(t.name)) return m;
    return t.lead + company(`${t.name} ${org}`);
  });
  out = out.replace(RE.companyCue, (m, cue: string, name: string) => (notAName(name) ? m : cue + company(name)));

  // People: what the caller knows first, then cues, then the first-name list.
  const person = (name: string) => {
    const words = name.split(' ');
    if (words.length > 1 && ORG_WORDS.has(words[words.length - 1]!)) return company(name);
    const placeholder = reg.entity('person', name);
    reg.alias('person', name, placeholder);
    return placeholder;
  };
  for (const re of knownPatterns(known.names ?? [])) out = out.replace(re, (m) => person(m));
  out = out.replace(RE.honorific, (_m, name: string) => person(name));
  out = out.replace(RE.relationCue, (m, cue: string, name: string) => (notAName(name) ? m : cue + person(name)));
  out = out.replace(RE.apposition, (m, name: string, rest: string) => {
    const t = trimName(name);
    return notAName(t.name) ? m : t.lead + person(t.name) + rest;
  });
  out = replaceFullNames(out, (first, last) => (looksLikePerson(first, last) ? person(`${first} ${last}`) : null));
  out = out.replace(RE.word, (m) => (FIRST_NAMES.has(m) ? reg.entity('person', m) : m));

  // Parts of names seen above ("Smith" after "Jane Smith"), as written.
  if (reg.aliases.size > 0) {
    const parts = [...reg.aliases.keys()].sort((a, b) => b.length - a.length).map(escapeRe);
    const re = new RegExp(`${NOT_BEFORE}(?:${parts.join('|')})${NOT_AFTER}`, 'gu');
    out = out.replace(re, (m) => {
      const a = reg.aliases.get(m);
      return a ? reg.fixed(a.kind, a.placeholder) : m;
    });
  }

  // Figures last, so amounts, dates and phones have taken their digits; percentages, ratios and durations stay (see the header).
  const series = timeSeries(out);
  out = out.replace(RE.figure, (m, from: string | undefined, to: string | undefined, num: string | undefined, mult: string | undefined, offset: number, whole: string) => {
    if (kept(whole, offset, m.length) || series.some(([a, b]) => offset >= a && offset + m.length <= b)) return m;
    const small = from !== undefined ? numericValue(from) <= 10 && numericValue(to!) <= 10 : mult === undefined && numericValue(num!) <= 10;
    return small ? m : reg.fixed('number', '[FIGURE]');
  });

  return { text: guard.restore(out), replacements: reg.replacements };
}

const KIND_ORDER: PiiKind[] = ['email', 'phone', 'url', 'handle', 'person', 'company', 'amount', 'number'];

/**
 * The PII kinds still present — exactly what `anonymise` would replace — so
 * it is empty on anything anonymise produced, and flags what a model pass
 * let back in.
 */
export function findPii(text: string, known: KnownEntities = {}): PiiKind[] {
  const kinds = new Set(anonymise(text, known).replacements.map((r) => r.kind));
  return KIND_ORDER.filter((k) => kinds.has(k));
}
