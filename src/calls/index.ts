import type { AnyCall } from './call';
import { boardSelectionCall } from './board';
import { contributionCall, facilitatorRoundCall, moderatorCall, openingStatementCall, researchCall } from './debate';
import { problemStatementCall } from './intake';
import { anonymiseCall, lessonsExtractCall, lessonsSameCall } from './memory';
import { decomposeCall, lessonsQueryCall, lessonsRankCall } from './planning';
import { expertSummaryCall, finalRecommendationCall, synthesisCall } from './synthesis';
import { calibrationCall, optionsCall, voteCall } from './voting';

export * from './board';
export * from './call';
export * from './debate';
export * from './intake';
export * from './memory';
export * from './planning';
export * from './synthesis';
export * from './voting';

/** Every model call the service makes, by purpose: the one place a call is declared. */
export const CATALOGUE = Object.fromEntries(
  [
    problemStatementCall,
    decomposeCall,
    boardSelectionCall,
    lessonsQueryCall,
    lessonsRankCall,
    openingStatementCall,
    contributionCall,
    facilitatorRoundCall,
    moderatorCall,
    researchCall,
    optionsCall,
    voteCall,
    calibrationCall,
    synthesisCall,
    finalRecommendationCall,
    expertSummaryCall,
    anonymiseCall,
    lessonsExtractCall,
    lessonsSameCall,
  ].map((c: AnyCall) => [c.purpose, c]),
) as Record<string, AnyCall>;
