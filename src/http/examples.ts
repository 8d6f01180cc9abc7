/**
 * Examples for the OpenAPI document, taken from a real simulated session
 * (trimmed). tests/contract/openapi.test.ts checks each against its route's
 * schema, and the Redocly lint against the generated document.
 */

const ID = '2cadfb34-c997-45f7-aafc-97d191ff4b6b';
const links = { self: `/v1/sessions/${ID}`, stream: `/v1/sessions/${ID}/stream`, events: `/v1/sessions/${ID}/events` };

export const createSessionExample = {
  problem: 'Should I raise prices by 20% for new customers?',
  context: '$12K MRR, 100 customers, churn 3%/month.',
  budget_usd: 1,
};

export const createdExample = { id: ID, status: 'queued', links };

export const snapshotExample = {
  "id": ID,
  "status": "running",
  "phase": "debate",
  "provider": "simulated",
  "problem": "Should I raise prices by 20% for new customers?",
  "created_at": "2026-11-22T13:27:27.099Z",
  "updated_at": "2026-11-22T13:27:28.569Z",
  "links": {
    "self": "/v1/sessions/2cadfb34-c997-45f7-aafc-97d191ff4b6b",
    "stream": "/v1/sessions/2cadfb34-c997-45f7-aafc-97d191ff4b6b/stream",
    "events": "/v1/sessions/2cadfb34-c997-45f7-aafc-97d191ff4b6b/events"
  },
  "simulated": true,
  "mode": "auto",
  "settings": {},
  "models": {
    "roles": {
      "intake": { "fast": ["claude-haiku-5-5"], "smart": ["claude-sonnet-5-5"] },
      "experts": { "fast": ["claude-haiku-5-5", "openai:gpt-4.1-mini"], "smart": ["claude-sonnet-5-5"] },
      "facilitator": { "fast": ["claude-haiku-5-5"], "smart": ["claude-sonnet-5-5"] },
      "synthesis": { "fast": ["claude-haiku-5-5"], "smart": ["claude-sonnet-5-5"] },
      "memory": { "fast": ["claude-haiku-5-5"], "smart": ["claude-sonnet-5-5"] }
    },
    "seats": {
      "financial_analyst": { "fast": ["openai:gpt-4.1-mini"], "smart": ["openai:gpt-4.1-mini"] },
      "growth_strategist": { "fast": ["claude-haiku-5-5", "openai:gpt-4.1-mini"], "smart": ["claude-sonnet-5-5"] }
    }
  },
  "context": "$12K MRR, 100 customers, churn 3%/month.",
  "progress": {
    "phase": "debate",
    "total": 4,
    "percent": 46,
    "estimate": {
      "budgetUsd": null,
      "maximumUsd": 0.9536999999999999,
      "minimumUsd": 0.3401,
      "expectedUsd": 0.5945,
      "perSubProblem": [
        {
          "maximumUsd": 0.22604999999999997,
          "minimumUsd": 0.07265,
          "expectedUsd": 0.13625
        },
        {
          "maximumUsd": 0.22604999999999997,
          "minimumUsd": 0.07265,
          "expectedUsd": 0.13625
        },
        {
          "maximumUsd": 0.22604999999999997,
          "minimumUsd": 0.07265,
          "expectedUsd": 0.13625
        },
        {
          "maximumUsd": 0.22604999999999997,
          "minimumUsd": 0.07265,
          "expectedUsd": 0.13625
        }
      ]
    },
    "subProblems": {
      "sp1": {
        "round": 6,
        "stage": "debate",
        "fraction": 0.6857,
        "maxRounds": 7
      },
      "sp3": {
        "round": 5,
        "stage": "voting",
        "fraction": 0.85,
        "maxRounds": 7
      }
    },
    "label": "0 of 4 sub-problems decided · sp1 round 6/7 · sp3 voting"
  },
  "usage": {
    "calls": 63,
    "inputTokens": 107012,
    "outputTokens": 14981,
    "cacheReadTokens": 0,
    "cacheWriteTokens": 0,
    "costUsd": 0.199187,
    "byPhase": {
      "debate": {
        "calls": 33,
        "costUsd": 0.125438
      },
      "decomposition": {
        "calls": 1,
        "costUsd": 0.010071
      },
      "facilitation": {
        "calls": 13,
        "costUsd": 0.030098
      },
      "intake": {
        "calls": 1,
        "costUsd": 0.002223
      },
      "lessons": {
        "calls": 2,
        "costUsd": 0.002448
      },
      "research": {
        "calls": 4,
        "costUsd": 0.005563
      },
      "voting": {
        "calls": 9,
        "costUsd": 0.023346
      }
    }
  },
  "results": null,
  "error": null,
  "checkpoint": null,
  "case_memory": {
    "statement": "Decide whether to raise prices by 20% for new customers.",
    "statementBy": "board",
    "assumptions": [
      "The existing 100 customers stay roughly stable while this is decided."
    ],
    "intents": [],
    "decisions": [],
    "contradictions": [
      {
        "id": "sp3:growth_strategist",
        "open": false,
        "text": "growth_strategist: earlier \"Start the target customers and first channel small, measure it against agreed criteria, then commit or stop.\", now \"Commit to the target customers and first channel now.\"",
        "between": [
          "growth_strategist"
        ]
      }
    ],
    "subProblems": {
      "sp1": { "title": "Price level for new customers", "round": 6, "maxRounds": 7, "contributions": 17, "status": "running" },
      "sp2": { "title": "Grandfathering existing customers", "round": 0, "maxRounds": 0, "contributions": 0, "status": "pending" },
      "sp3": { "title": "First acquisition channel", "round": 5, "maxRounds": 7, "contributions": 16, "status": "running" },
      "sp4": { "title": "Measuring the change", "round": 0, "maxRounds": 0, "contributions": 0, "status": "pending" }
    },
    "entries": [
      {
        "at": "2026-11-22T13:27:27.254Z",
        "kind": "board",
        "text": "Board: Sofia Lindqvist (Growth Strategist), Daniel Reyes (Financial Analyst), Arjun Mehta (Data Scientist), Dr. Elena Voss (Behavioral Psychologist)."
      },
      {
        "at": "2026-11-22T13:27:28.402Z",
        "kind": "round",
        "text": "Stopped after round 5: consensus (three of four agree)",
        "subProblemId": "sp3"
      }
    ],
    "counters": {
      "contributions": 33,
      "contradictions": 1,
      "contributions:data_scientist": 8,
      "contributions:financial_analyst": 8,
      "contributions:growth_strategist": 8,
      "contributions:behavioral_psychologist": 9
    }
  },
  "last_seq": 93,
  "started_at": "2026-11-22T13:27:27.125Z",
  "ended_at": null
};

export const listExample = {
  "items": [
    {
      "id": ID,
      "status": "running",
      "phase": "debate",
      "provider": "simulated",
      "problem": "Should I raise prices by 20% for new customers?",
      "created_at": "2026-11-22T13:27:27.099Z",
      "updated_at": "2026-11-22T13:27:28.569Z",
      "links": {
        "self": "/v1/sessions/2cadfb34-c997-45f7-aafc-97d191ff4b6b",
        "stream": "/v1/sessions/2cadfb34-c997-45f7-aafc-97d191ff4b6b/stream",
        "events": "/v1/sessions/2cadfb34-c997-45f7-aafc-97d191ff4b6b/events"
      }
    }
  ],
  "next_cursor": "WyIyMDI2LTExLTIyVDEzOjI3OjI3LjA5OVoiLCIyY2FkZmIzNC1jOTk3LTQ1ZjctYWFmYy05N2QxOTFmZjRiNmIiXQ"
};

export const eventsPageExample = {
  "items": [
    {
      "seq": 1,
      "type": "session.created",
      "session_id": ID,
      "ts": "2026-11-22T13:27:27.099Z",
      "data": {
        "mode": "auto",
        "context": "$12K MRR, 100 customers, churn 3%/month.",
        "problem": "Should I raise prices by 20% for new customers?",
        "provider": "simulated"
      }
    },
    {
      "seq": 2,
      "type": "session.started",
      "session_id": ID,
      "ts": "2026-11-22T13:27:27.137Z",
      "data": {
        "attempt": 1
      }
    },
    {
      "seq": 3,
      "type": "problem.stated",
      "session_id": ID,
      "ts": "2026-11-22T13:27:27.254Z",
      "data": {
        "vague": false,
        "safety": {
          "reason": "ordinary business decision",
          "allowed": true
        },
        "domains": [
          "strategy",
          "finance",
          "market"
        ],
        "category": "pricing",
        "statement": "Decide whether to raise prices by 20% for new customers.",
        "assumptions": [
          "The existing 100 customers stay roughly stable while this is decided."
        ],
        "clarifications": []
      }
    }
  ],
  "next_after": 3,
  "has_more": true
};

export const resolveCheckpointExample = { action: 'intervene', message: 'What about our 14-month runway?' };

export const resolvedExample = { session_id: ID, checkpoint_id: 'sp1.r2', action: 'intervene', status: 'queued', links };

export const cancelledExample = { id: ID, status: 'cancelled', links };
