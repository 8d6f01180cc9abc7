import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anonymise, findPii } from '../../src/memory/anonymise';

/** Contexts of the shared benchmark scenarios (problems/scenarios.json), inlined so the test stands alone. */
const SCENARIO_TEXTS = [
  'I have $50K saved and 12 months runway. Should I build a B2B SaaS dashboard tool, a consumer mobile app for habit tracking, or a freelance marketplace for technical writers?',
  'Resources: $50K, 12 months, solo developer with design skills. Success criteria: $5K MRR by month 9, product-market fit signals by month 6. Constraints: no technical co-founder, limited marketing budget ($5K), previous startup failed.',
  'Solo founder, 500 free users, 15% weekly active, built-in analytics. Success: convert 5% to paid within 3 months, keep 80%+ free user retention. Two competitors do freemium at $20/mo and $50/mo; users are small businesses.',
  'I have a working product with 50 paying customers ($3K MRR). Should I focus on content marketing (SEO blog), paid ads (Google/Meta), a partnership channel (integrate with Shopify), cold outbound sales, or building a free tool/PLG motion?',
  '$3K MRR, $2K/mo personal expenses, 20 hours/week (part-time job). Goal: $10K MRR in 6 months to go full-time. 50 customers came from Reddit posts and word of mouth; no repeatable channel.',
  '200 paying customers, $15K MRR, $8K/mo profit, solo technical founder. Goal: $30K MRR by end of year without major outages. Current code slows feature work by ~40%; 2 competitors ship fast. PostgreSQL hitting limits.',
  '$12K MRR, 2 years in, burnt out from feature requests. Goal: $25K MRR in 12 months, better retention (now 70%). Law firms pay $200/mo vs $80 average; agencies grow 30% MoM; horizontal churn is 30%.',
  "I've been solo for 18 months, at $8K MRR but plateaued. Should I bring on a co-founder (sales expert wants 30% equity, technical person wants 25%), hire a part-time salesperson ($3K/mo + commission), or stay solo?",
  'SaaS at $40 MRR per customer, 18-month LTV. Want a CAC target, a channel choice and a budget split.',
];

/** Realistic problem texts with planted PII; `planted` must all disappear. */
const PLANTED: { text: string; planted: string[]; known?: { names?: string[]; companies?: string[] } }[] = [
  {
    text:
      'My co-founder Jane Smith (jane.smith@acmeanalytics.io, +44 20 7946 0958) wants to raise $1.2M from Sequoia Capital. ' +
      'Jane thinks Smith should own 30% and we have 200 customers.',
    planted: ['Jane', 'Smith', 'jane.smith', 'acmeanalytics', '7946', '$1.2M', 'Sequoia', '200 customers'],
  },
  {
    text:
      'I run Brightline Labs Ltd. Our biggest client, Initech LLC, pays €5m a year and £300/month for support. ' +
      'Call me on (415) 555-0132 or 415.555.0199, or see https://brightline.dev/pricing and www.brightline.co.uk.',
    planted: ['Brightline', 'Initech', '€5m', '£300', '555-0132', '555.0199', 'https://', 'brightline.dev', 'www.'],
  },
  {
    text:
      'Dr. Elena Voss advised me and Mr. Patel disagreed. I work at Globex with Tom; Globex made 12,000 USD last week ' +
      'and 50k dollars last quarter. Follow @growthjane or u/foundertom. Phone 06 12 34 56 78, +33 6 12 34 56 78, 0612345678.',
    planted: ['Elena', 'Voss', 'Patel', 'Globex', 'Tom', '12,000', '50k', '@growthjane', 'foundertom', '06 12', '0612345678'],
    known: { companies: ['Globex'] },
  },
  {
    text: 'Raj, my CTO, and a developer named Kwabena Owusu built our app. My startup Habitly has 1,500 users and $12K in the bank.',
    planted: ['Raj', 'Kwabena', 'Owusu', 'Habitly', '1,500', '$12K'],
  },
  {
    text: 'Our investor Olusegun Adeyemi (olu@fund.vc) offered a bridge; his partner Marta asked for 12 months runway.',
    planted: ['Olusegun', 'Adeyemi', 'olu@', 'Marta'],
    known: { names: ['Olusegun Adeyemi', 'Marta'] },
  },
];

describe('anonymise: the benchmark scenarios', () => {
  it.each(SCENARIO_TEXTS)('leaves no PII the patterns know: %s', (text) => {
    const out = anonymise(text).text;
    expect(findPii(out)).toEqual([]);
    // Money and counts go; percentages, ratios and durations are the reasoning and stay.
    expect(out.replace(/\d+(?:\.\d+)?(?:[ ]?%|x\b|[ -](?:months?|weeks?|days?|hours?|years?)\b)/g, '')).not.toMatch(/\$\d|\d{2,}/);
  });

  it('keeps the shape of the problem readable', () => {
    expect(anonymise(SCENARIO_TEXTS[0]!).text).toBe(
      'I have [AMOUNT] saved and 12 months runway. Should I build a B2B SaaS dashboard tool, a consumer mobile app for habit tracking, or a freelance marketplace for technical writers?',
    );
    expect(anonymise('Solo founder, 500 free users, 15% weekly active. Convert 5% within 3 months.').text).toBe(
      'Solo founder, [FIGURE] free users, 15% weekly active. Convert 5% within 3 months.',
    );
  });
});

describe('anonymise: planted PII', () => {
  it.each(PLANTED)('removes every planted value', ({ text, planted, known }) => {
    const { text: out } = anonymise(text, known);
    for (const value of planted) expect(out, value).not.toContain(value);
    expect(findPii(out, known)).toEqual([]);
  });

  it('finds each kind in the raw text', () => {
    expect(findPii(PLANTED[0]!.text)).toEqual(['email', 'phone', 'person', 'company', 'amount', 'number']);
    expect(findPii(PLANTED[1]!.text)).toEqual(expect.arrayContaining(['url', 'phone', 'company', 'amount']));
    expect(findPii(PLANTED[2]!.text, PLANTED[2]!.known)).toEqual(expect.arrayContaining(['handle', 'person', 'company']));
  });

  it('never puts the original value in the replacements (they can be logged)', () => {
    const { replacements } = anonymise(PLANTED[0]!.text);
    expect(JSON.stringify(replacements)).not.toMatch(/Jane|Smith|jane|7946|1\.2M/);
    expect(replacements.every((r) => /^\[[A-Z]+(?:_\d+)?\]$/.test(r.placeholder))).toBe(true);
  });
});

describe('anonymise: each kind', () => {
  const one = (text: string, known?: { names?: string[]; companies?: string[]; keep?: string[] }) => anonymise(text, known).text;

  it('emails, URLs and handles', () => {
    expect(one('Mail jane.o-brien+bo1@mail.example.com today.')).toBe('Mail [EMAIL] today.');
    expect(one('See https://acme.io/pricing?x=1, then www.acme.com.')).toBe('See [URL], then [URL].');
    expect(one('Our site acme.io and shop.acme.co.uk convert well.')).toBe('Our site [URL] and [URL] convert well.');
    expect(one('DM @jane_doe or u/solo_dev.')).toBe('DM [HANDLE] or [HANDLE].');
    // Not domains: a framework and a file name.
    expect(one('Built on Node.js and ASP.NET, see config.ts.')).toBe('Built on Node.js and ASP.NET, see config.ts.');
  });

  it('phone numbers, international and US/EU formats', () => {
    for (const phone of ['+44 20 7946 0958', '+1 (415) 555-0132', '+33 6 12 34 56 78', '+49 30 12345678', '(415) 555-0132', '415-555-0132', '415.555.0132', '020 7946 0958', '06 12 34 56 78', '030 12345678']) {
      expect(one(`Call ${phone} now`), phone).toBe('Call [PHONE] now');
    }
  });

  it('does not take ranges, years or prices for phones; a range is one figure', () => {
    expect(one('From 2019-2023 we grew; 100-1000 users; 3-5 months.')).toBe('From [FIGURE] we grew; [FIGURE] users; 3-5 months.');
    expect(findPii(one('Price $0.10/unit, 2019-2023'))).toEqual([]);
    expect(anonymise('2019-2023').replacements.map((r) => r.kind)).toEqual(['number']);
  });

  it('money amounts in every common form, units kept outside', () => {
    const cases: [string, string][] = [
      ['$12K', '[AMOUNT]'],
      ['$1.2M', '[AMOUNT]'],
      ['12,000 USD', '[AMOUNT]'],
      ['USD 12,000', '[AMOUNT]'],
      ['€5m', '[AMOUNT]'],
      ['£300/month', '[AMOUNT]/month'],
      ['50k dollars', '[AMOUNT]'],
      ['$0.10/unit', '[AMOUNT]/unit'],
      ['$5', '[AMOUNT]'],
      ['20 euros', '[AMOUNT]'],
      ['US$2,500', '[AMOUNT]'],
      // A range is one amount: its bare upper end is money too (a trial's "$13.5-15K" read "[AMOUNT]-[FIGURE]").
      ['$13.5-15K', '[AMOUNT]'],
      ['$1,200-4,000/month', '[AMOUNT]/month'],
      ['$20-$50', '[AMOUNT]'],
      ['USD 5-10M', '[AMOUNT]'],
      ['$20 - $50', '[AMOUNT]'],
      // A dollar-sign currency's prefix goes with it (a trial's "R$ 25" left "R[AMOUNT]").
      ['R$ 25', '[AMOUNT]'],
      ['HK$1,200', '[AMOUNT]'],
    ];
    for (const [raw, want] of cases) expect(one(`pay ${raw} now`), raw).toBe(`pay ${want} now`);
  });

  it('figures: counts above 10 and magnitudes go; percentages, ratios, durations, small numbers and numbers inside words stay', () => {
    expect(one('Churn is 30% and 5% convert; 200 customers, 12 months runway, 1.5 million visits, 12k users.')).toBe(
      'Churn is 30% and 5% convert; [FIGURE] customers, 12 months runway, [FIGURE] visits, [FIGURE] users.',
    );
    expect(one('weeks 10-13, 8-12 customers, 3-6 months, a 2:1 ratio, ~180GB')).toBe('weeks 10-13, [FIGURE] customers, 3-6 months, a 2:1 ratio, ~[FIGURE]');
    expect(one('3 options, 2 competitors, month 9, 2-3 features, pay 3x, 2.5x growth, B2B, Q3, sp1, Web3, 1st.')).toBe(
      '3 options, 2 competitors, month 9, 2-3 features, pay 3x, 2.5x growth, B2B, Q3, sp1, Web3, 1st.',
    );
    expect(one('grew 20x, 18-month LTV, a 60-hour week')).toBe('grew 20x, 18-month LTV, a 60-hour week');
    // Written either way, a day in a plan is a position in time (a trial's memory had "day 90" and "day-[FIGURE]").
    expect(one('the day-90 review and the day 90 review, week-12')).toBe('the day-90 review and the day 90 review, week-12');
    expect(one('launch on 2024-03-01 or 05.03.2024')).toBe('launch on [FIGURE] or [FIGURE]');
  });

  it('positions in time listed once with their unit stay; a count after a position, a year and a date do not', () => {
    // A relay helper's memory read "the [FIGURE]-day marks" and "day 30, [FIGURE] and [FIGURE]".
    expect(one('Check at the 30/60/90-day marks; review at day 30, 60 and 90.')).toBe('Check at the 30/60/90-day marks; review at day 30, 60 and 90.');
    expect(one('checks at 30, 60 and 90 days, weeks 10 to 13, at month 6, 12 or 18.')).toBe('checks at 30, 60 and 90 days, weeks 10 to 13, at month 6, 12 or 18.');
    // "30/60/90" has the shape of a date but is none; a real one still goes.
    expect(one('signed 14/03/2025, due 3/4/25')).toBe('signed [FIGURE], due [FIGURE]');
    expect(one('Set 30/60/90 checkpoints')).toBe('Set [FIGURE]/[FIGURE]/[FIGURE] checkpoints');
    expect(one('In month 3, 450 customers churned.')).toBe('In month 3, [FIGURE] customers churned.');
    expect(one('In 2024, 300 days later; 200, 300 and 400 customers')).toBe('In [FIGURE], 300 days later; [FIGURE], [FIGURE] and [FIGURE] customers');
  });

  it('people: honorifics, relationship cues, apposition, first names, known names', () => {
    expect(one('Dr. Elena Voss and Mrs Okafor agree.')).toBe('[PERSON_1] and [PERSON_2] agree.');
    expect(one('my co-founder Jane Smith says no')).toBe('my co-founder [PERSON_1] says no');
    expect(one('My wife, Ngozi, runs ops; our advisor Kwabena Owusu too.')).toBe('My wife, [PERSON_1], runs ops; our advisor [PERSON_2] too.');
    expect(one('Tomasz, my CTO, quit.')).toBe('[PERSON_1], my CTO, quit.');
    expect(one('We hired a designer named Ottilie.')).toBe('We hired a designer named [PERSON_1].');
    expect(one('Hi Sarah Jones, thanks. Sarah agreed.')).toBe('Hi [PERSON_1], thanks. [PERSON_1] agreed.');
    expect(one("Priya's plan")).toBe("[PERSON_1]'s plan");
    expect(one('Ask Bartholomew Quist.', { names: ['Bartholomew Quist'] })).toBe('Ask [PERSON_1].');
    expect(one('ask bartholomew quist', { names: ['Bartholomew Quist'] })).toBe('ask [PERSON_1]');
  });

  it('companies: legal suffixes, known companies anywhere, ownership cues; the sentence stop survives', () => {
    expect(one('We met Acme Corp. Then Initech LLC and Smith & Co. Ltd. called.')).toBe('We met [COMPANY_1]. Then [COMPANY_2] and [COMPANY_3] called.');
    expect(one('Voss Analytik GmbH and Tesco plc and Nestlé S.A. and Siemens AG')).toBe('[COMPANY_1] and [COMPANY_2] and [COMPANY_3] and [COMPANY_4]');
    expect(one('I work at Globex; Globex pays well; for Globex, with Globex.', { companies: ['Globex'] })).toBe(
      'I work at [COMPANY_1]; [COMPANY_1] pays well; for [COMPANY_1], with [COMPANY_1].',
    );
    expect(one('my startup Habitly and a company called Zentrix Health')).toBe('my startup [COMPANY_1] and a company called [COMPANY_2]');
    expect(one('Yesterday Acme Ltd signed.')).toBe('Yesterday [COMPANY_1] signed.');
    expect(one('Sequoia Capital led; Sequoia wants a board seat. Brightline Labs too.')).toBe(
      '[COMPANY_1] led; [COMPANY_1] wants a board seat. [COMPANY_2] too.',
    );
    // A category, not a name.
    expect(one('Venture Capital and Growth Partners are options; Bank of America Corp is not ours.')).toBe(
      'Venture Capital and Growth Partners are options; [COMPANY_1] is not ours.',
    );
  });

  it('single-word known entries are case-sensitive: a known "Will" does not eat the verb', () => {
    expect(one('Will says it will work.', { names: ['Will'] })).toBe('[PERSON_1] says it will work.');
  });

  it('keep protects names the caller wants kept (e.g. persona names)', () => {
    expect(one('Maria Santos agreed with Daniel; Sarah objected.', { keep: ['Maria Santos', 'Daniel'] })).toBe(
      'Maria Santos agreed with Daniel; [PERSON_1] objected.',
    );
  });
});

describe('anonymise: consistency and idempotence', () => {
  it('gives the same entity the same number, and different ones different numbers', () => {
    const { text } = anonymise('My co-founder Jane Smith met Tom Baker. Later Jane emailed Smith and Tom; Acme Inc and Acme agreed.');
    expect(text).toBe('My co-founder [PERSON_1] met [PERSON_2]. Later [PERSON_1] emailed [PERSON_1] and [PERSON_2]; [COMPANY_1] and [COMPANY_1] agreed.');
  });

  it('anonymising twice changes nothing', () => {
    for (const raw of [...SCENARIO_TEXTS, ...PLANTED.map((p) => p.text)]) {
      const once = anonymise(raw).text;
      const twice = anonymise(once);
      expect(twice.text, raw).toBe(once);
      expect(twice.replacements).toEqual([]);
    }
  });

  it('numbers new entities after placeholders already in the text', () => {
    expect(anonymise('[PERSON_1] met Sarah Jones at [COMPANY_2] and Initech LLC.').text).toBe('[PERSON_1] met [PERSON_2] at [COMPANY_2] and [COMPANY_3].');
  });

  it('is deterministic', () => {
    const text = PLANTED.map((p) => p.text).join(' ');
    expect(anonymise(text)).toEqual(anonymise(text));
  });
});

describe('anonymise: ordinary business words are not PII', () => {
  const untouched = [
    'Product Market Fit is the goal; Go To Market comes later.',
    'We run Google Ads and Meta ads, a Shopify integration, Stripe billing, Reddit posts and a Product Hunt launch.',
    'Rewrite in Rust or stay on Python and PostgreSQL? Notion, Slack and HubSpot are our stack.',
    'Will customers pay? May we raise prices? Option A vs Option B; Next Steps: Talk to Customers.',
    'Key Risks: Hire Sales before Law Firm Pricing. Customer Success and Sales Team matter.',
    'The Kelly criterion, a Monte Carlo model, and San Diego or Austin offices.',
    'We chose Amazon Web Services over Google Cloud.',
  ];
  it.each(untouched)('%s', (text) => {
    expect(anonymise(text).text).toBe(text);
    expect(findPii(text)).toEqual([]);
  });

  it('well-known platforms are kept even next to legal suffixes, unless the caller lists them', () => {
    expect(anonymise('We pay Google LLC and Stripe Inc. monthly.').text).toBe('We pay Google LLC and Stripe Inc. monthly.');
    expect(anonymise('I work at Stripe.', { companies: ['Stripe'] }).text).toBe('I work at [COMPANY_1].');
  });
});

describe('anonymise: generated texts', () => {
  /** Deterministic LCG so a failure reproduces. */
  const rng = (seed: number) => () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const FRAGMENTS = [
    'my co-founder Jane Smith',
    'Dr. Okafor',
    'Tom',
    '+44 20 7946 0958',
    '(415) 555-0132',
    'jane@acme.io',
    'https://acme.io/x',
    '@jane_doe',
    '$1.2M',
    '£300/month',
    '50k dollars',
    '30%',
    '200 customers',
    '12 months runway',
    'Acme Corp.',
    'Initech LLC',
    'Sequoia Capital',
    'Product Market Fit',
    'Google Ads',
    'a Shopify integration',
    '3 options',
    'B2B SaaS',
    'Will customers pay?',
    'the law firm segment',
    '2019-2023',
  ];

  it('stay idempotent and clean for 300 random mixes', () => {
    const next = rng(7);
    for (let i = 0; i < 300; i++) {
      const n = 3 + Math.floor(next() * 8);
      const text = Array.from({ length: n }, () => FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]!).join(next() < 0.5 ? ' and ' : '. ');
      const once = anonymise(text).text;
      expect(anonymise(once).text, text).toBe(once);
      expect(findPii(once), text).toEqual([]);
      for (const kept of ['Product Market Fit', 'Google Ads', 'Shopify', '3 options', 'B2B SaaS']) {
        if (text.includes(kept)) expect(once, text).toContain(kept);
      }
    }
  });

  it('handles a large text quickly', () => {
    const next = rng(11);
    const text = Array.from({ length: 5000 }, () => FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]!).join(', ');
    const started = performance.now();
    const out = anonymise(text).text;
    expect(performance.now() - started).toBeLessThan(2000);
    expect(findPii(out)).toEqual([]);
  });
});

describe('anonymise: a labelled set of what must go and what must stay', () => {
  // What must go: names, contacts, money and a business's exact counts. What must stay: the reasoning — percentages, thresholds, ratios, durations, the service's own rules.
  const set = JSON.parse(readFileSync(new URL('../fixtures/anonymise-labelled.json', import.meta.url), 'utf8')) as { text: string; go: string[]; stay: string[] }[];

  it('removes every identifying item and keeps every item of reasoning', () => {
    const leaked: string[] = [];
    const lost: string[] = [];
    for (const x of set) {
      const out = anonymise(x.text).text;
      leaked.push(...x.go.filter((g) => out.includes(g)).map((g) => `${g} ← ${x.text}`));
      lost.push(...x.stay.filter((k) => !out.includes(k)).map((k) => `${k} ← ${x.text}`));
    }
    expect(set.reduce((n, x) => n + x.go.length, 0)).toBeGreaterThanOrEqual(25);
    expect(set.reduce((n, x) => n + x.stay.length, 0)).toBeGreaterThanOrEqual(30);
    expect(leaked).toEqual([]);
    expect(lost).toEqual([]);
  });
});

