import { z } from 'zod';
import pool from '../data/personas.json' with { type: 'json' };
import { personaSchema, type Persona } from './model';

/** The persona pool, validated once at load; a broken data file fails at start. */
export const PERSONAS: readonly Persona[] = z.array(personaSchema).min(8).parse(pool);

export const personaByCode = (code: string): Persona | undefined => PERSONAS.find((p) => p.code === code);

/** The persona behind a code the engine chose; an unknown code is a defect, not data. */
export const personaOf = (code: string): Persona => {
  const p = personaByCode(code);
  if (!p) throw new Error(`unknown persona ${code}`);
  return p;
};

export const nameOf = (code: string) => personaByCode(code)?.name ?? code;
