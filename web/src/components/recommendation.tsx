type Data = Record<string, any>;

/** The final recommendation: the plan, its steps, trade-offs and what only the person can answer. */
export function Recommendation({ rec }: { rec: Data }) {
  return (
    <section class="panel recommendation">
      <h2>Recommendation</h2>
      <p class="summary">{rec.summary}</p>
      <ol class="steps">
        {(rec.steps ?? []).map((s: string, i: number) => (
          <li key={i}>{s}</li>
        ))}
      </ol>
      {(rec.tradeoffs ?? []).length > 0 && (
        <>
          <h3>Trade-offs</h3>
          <ul>
            {(rec.tradeoffs as string[]).map((t, i) => (
              <li key={i}>{t}</li>
            ))}
          </ul>
        </>
      )}
      {(rec.questionsForYou ?? []).length > 0 ? (
        <>
          <h3>Questions for you: the answers would change the plan</h3>
          <ul class="questions-for-you">
            {(rec.questionsForYou as Data[]).map((q, i) => (
              <li key={i}>
                {q.question} <span class="muted">{q.changes}</span>
              </li>
            ))}
          </ul>
          {(rec.openQuestions ?? []).length > rec.questionsForYou.length && (
            <details>
              <summary>All {rec.openQuestions.length} questions the experts raised</summary>
              <Raised questions={rec.openQuestions} />
            </details>
          )}
        </>
      ) : (
        (rec.openQuestions ?? []).length > 0 && (
          <>
            <h3>Open questions only you can answer</h3>
            <Raised questions={rec.openQuestions} />
          </>
        )
      )}
      <p class="muted">Confidence: {String(rec.confidence)}</p>
      {(rec.disclaimers ?? []).map((d: Data) => (
        <p class="note" key={d.kind}>
          {d.text}
        </p>
      ))}
    </section>
  );
}

/** Every question the experts raised for the person, with who asked. */
function Raised({ questions }: { questions: Data[] }) {
  return (
    <ul>
      {questions.map((q, i) => (
        <li key={i}>
          {q.question} <span class="muted">({q.name})</span>
        </li>
      ))}
    </ul>
  );
}
