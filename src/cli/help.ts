/** Usage texts: `bo1 --help` and `bo1 <command> --help`. */
const GLOBAL = `Global options:
  --url URL         the bo1 API (env BO1_URL; default http://127.0.0.1:3000)
  --key KEY         API key, sent as "Authorization: Bearer KEY" (env BO1_API_KEY)
  --color, --no-color
                    colour output (default: only on a terminal, and not when NO_COLOR is set)
  --trace           print every event's seq and type to stderr
  -h, --help        this help
Environment: BO1_URL, BO1_API_KEY, NO_COLOR, BO1_RETRY_FOR_MS (how long to retry an
unreachable API before giving up with exit code 3; default 60000)`;

export const HELP: Record<string, string> = {
  main: `bo1 — Board of One from the console: a board of AI experts deliberates your decision.

Usage:
  bo1 ask [problem words…] [options]   start a session, watch it and answer its checkpoints
  bo1 attach <session-id> [--after SEQ] watch a session (from the start) and answer its checkpoints
  bo1 transcript <session-id>          print a session's transcript (Markdown)
  bo1 cancel <session-id>              stop a session now

Run "bo1 <command> --help" for a command's options.

${GLOBAL}

Exit codes: 0 session completed · 1 session failed or cancelled, or the API refused · 2 usage error · 3 cannot reach the API`,
  ask: `Usage: bo1 ask [problem words…] [options]
       bo1 ask --file problem.txt [options]
       echo "problem" | bo1 ask - --auto

Creates a session (interactive unless --auto), prints its id, then streams it
to the end, asking you at each checkpoint. Answers are read a line at a time
from stdin: type them, or pipe a script of answers (at the end of the script,
every later checkpoint continues as proposed).

Options:
  --context TEXT           what the board should know (resources, constraints)
  --context-file FILE      the context from a file ("-": stdin)
  --file FILE              the problem from a file ("-": stdin)
  -                        as the problem: read it from stdin (needs --auto: stdin cannot also answer prompts)
  --auto                   no checkpoints: clarifications become recorded assumptions
  --budget USD             spending cap for the session
  --seed S                 seed for the simulated board (same seed and problem, same deliberation)
  --no-checkpoint KIND     skip a checkpoint kind; repeat or comma-separate. Kinds: clarification,
                           statement, sub_problems, board, round_end, next_sub_problem

${GLOBAL}`,
  attach: `Usage: bo1 attach <session-id> [--after SEQ] [--auto]

Renders a session's stream from the start (or after event SEQ) until it ends,
and answers its pending checkpoints from stdin.

Options:
  --after SEQ   start after this event (earlier ones are read for context only)
  --auto        answer every checkpoint with "continue"

${GLOBAL}`,
  transcript: `Usage: bo1 transcript <session-id> [--format markdown|json] [--verbosity concise|standard|detailed]

Prints the session as people read it: Markdown (default) or JSON entries.

${GLOBAL}`,
  cancel: `Usage: bo1 cancel <session-id>

Stops the session now (the kill switch). What it produced so far stays readable.

${GLOBAL}`,
};
