/**
 * A small labelled set of argument pairs from bo1's own domain: `same` pairs
 * restate one argument in other words, `related` pairs are about the same
 * topic but argue different things, `different` pairs share nothing. An
 * embedder's similarity thresholds are calibrated on it (see calibrate.ts).
 */
export type PairLabel = 'same' | 'related' | 'different';

export const CALIBRATION_PAIRS: { a: string; b: string; label: PairLabel }[] = [
  { label: 'same', a: 'Law firms pay three times more, so focusing on them raises revenue per customer.', b: 'Because law firms pay about 3x the average, serving only them increases revenue per customer.' },
  { label: 'same', a: 'Run a small pilot with ten law firms before committing the whole company.', b: 'Before betting the company, pilot the idea with around ten law firms.' },
  { label: 'same', a: 'Churn of 30% means the horizontal product leaks customers faster than we can add them.', b: 'With 30% churn, the general product loses customers faster than it gains them.' },
  { label: 'same', a: 'Rewriting in Rust would stall feature work for months while nobody on the team knows the language.', b: 'A Rust rewrite freezes features for months, and none of the developers know Rust.' },
  { label: 'same', a: 'Hiring a part-time salesperson keeps equity intact and tests whether sales is the bottleneck.', b: 'A part-time sales hire tests if sales is the real constraint without giving away equity.' },
  { label: 'same', a: 'SEO compounds slowly; paid ads buy traffic now but stop the day the budget ends.', b: 'Paid ads give immediate traffic that ends with the budget, while SEO builds slowly and compounds.' },
  { label: 'related', a: 'Law firms pay three times more, so focusing on them raises revenue per customer.', b: 'Law firms have long procurement cycles, so sales to them will be slow.' },
  { label: 'related', a: 'Run a small pilot with ten law firms before committing the whole company.', b: 'Agencies grow 30% month over month, which makes them the faster segment.' },
  { label: 'related', a: 'Rewriting in Rust would stall feature work for months while nobody on the team knows the language.', b: 'Profiling the Python hot paths may remove most of the performance problem.' },
  { label: 'related', a: 'Hiring a part-time salesperson keeps equity intact and tests whether sales is the bottleneck.', b: 'A co-founder with an industry network could open doors that a contractor cannot.' },
  { label: 'related', a: 'SEO compounds slowly; paid ads buy traffic now but stop the day the budget ends.', b: 'At $40 a month per customer, the CAC must stay under roughly $240 to pay back in six months.' },
  { label: 'related', a: 'Churn of 30% means the horizontal product leaks customers faster than we can add them.', b: 'Better onboarding could lift retention above 80% within two quarters.' },
  { label: 'different', a: 'Law firms pay three times more, so focusing on them raises revenue per customer.', b: 'The founder is working sixty-hour weeks and risks burning out.' },
  { label: 'different', a: 'Run a small pilot with ten law firms before committing the whole company.', b: 'PostgreSQL is hitting its limits on the reporting queries.' },
  { label: 'different', a: 'Rewriting in Rust would stall feature work for months while nobody on the team knows the language.', b: 'A $29 tier would convert small businesses that find $99 too steep.' },
  { label: 'different', a: 'Hiring a part-time salesperson keeps equity intact and tests whether sales is the bottleneck.', b: 'Naming the startup FooBar is easier to spell than BarFoo.' },
  { label: 'different', a: 'SEO compounds slowly; paid ads buy traffic now but stop the day the budget ends.', b: 'Giving up 30% equity to a co-founder is hard to undo.' },
  { label: 'different', a: 'Churn of 30% means the horizontal product leaks customers faster than we can add them.', b: 'The mobile habit tracker would need design skills the founder already has.' },
];
