import { z } from 'zod';
import { personaSchema } from '../../domain/model';
import { PERSONAS, personaByCode } from '../../domain/personas';
import { notFound, problemSchema } from '../problem';
import { defineRoute, type RouteDef } from '../route';

const persona = personaSchema.meta({ id: 'Persona' });

export function personaRoutes(): RouteDef<any, any, any>[] {
  const list = defineRoute({
    method: 'GET',
    path: '/v1/personas',
    operationId: 'listPersonas',
    summary: 'The expert persona pool the board is drawn from',
    tags: ['personas'],
    responses: { 200: { description: 'Every persona', schema: z.object({ items: z.array(persona) }) } },
    handler: async () => ({ items: PERSONAS }),
  });
  const get = defineRoute({
    method: 'GET',
    path: '/v1/personas/{code}',
    operationId: 'getPersona',
    summary: 'One persona: background, expertise and decision style',
    tags: ['personas'],
    params: z.object({ code: z.string().regex(/^[a-z_]+$/, 'must be a persona code such as financial_analyst') }),
    responses: {
      200: { description: 'The persona', schema: persona },
      400: { description: 'Malformed code', schema: problemSchema },
      404: { description: 'No such persona', schema: problemSchema },
    },
    handler: async ({ params }) => {
      const p = personaByCode(params.code);
      if (!p) throw notFound(`persona ${params.code}`);
      return p;
    },
  });
  return [list, get];
}
