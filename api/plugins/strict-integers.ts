/**
 * Every integer of a path, query string or header is parsed strictly before validation: a route
 * whose schema declares a `type: 'integer'` property there gets a preValidation hook that accepts
 * only ASCII digits without sign or leading zero, within the property's minimum and maximum
 * (default 0 to 2147483647, PostgreSQL's integer). Ajv's coercion alone would pass `1e309`
 * (Infinity), `+1`, `0x10` or ` 1`, and the database then fails with a 500.
 * Anything else: 400 VALIDATION naming the parameter and the value.
 */
import fp from 'fastify-plugin';
import type { FastifyRequest, preValidationHookHandler } from 'fastify';
import { WebperfError } from '../../core/errors.js';
import { INT4_MAX, parseStrictInt } from '../request-helpers.js';

type Part = 'params' | 'querystring' | 'headers';

interface IntegerInput {
  part: Part;
  name: string;
  min: number;
  max: number;
}

const WHERE: Record<Part, string> = { params: 'path parameter', querystring: 'query parameter', headers: 'header' };

interface PropertySchema {
  type?: unknown;
  minimum?: unknown;
  maximum?: unknown;
}

/** The integer inputs a route's schema declares. */
export function integerInputs(schema: Partial<Record<Part, unknown>> | undefined): IntegerInput[] {
  const found: IntegerInput[] = [];
  for (const part of ['params', 'querystring', 'headers'] as const) {
    const properties = (schema?.[part] as { properties?: Record<string, PropertySchema> } | undefined)?.properties ?? {};
    for (const [name, prop] of Object.entries(properties)) {
      const types = Array.isArray(prop.type) ? prop.type : [prop.type];
      if (!types.includes('integer')) continue;
      found.push({
        part,
        name: part === 'headers' ? name.toLowerCase() : name,
        min: typeof prop.minimum === 'number' ? prop.minimum : 0,
        max: typeof prop.maximum === 'number' ? prop.maximum : INT4_MAX,
      });
    }
  }
  return found;
}

function rawValue(request: FastifyRequest, input: IntegerInput): unknown {
  const source = input.part === 'params' ? request.params : input.part === 'querystring' ? request.query : request.headers;
  return (source as Record<string, unknown> | undefined)?.[input.name];
}

export default fp(
  async (app) => {
    app.addHook('onRoute', (route) => {
      const inputs = integerInputs(route.schema as Partial<Record<Part, unknown>> | undefined);
      if (inputs.length === 0) return;
      const check: preValidationHookHandler = async (request) => {
        for (const input of inputs) {
          const raw = rawValue(request, input);
          if (raw === undefined) continue;
          if (parseStrictInt(raw, input.min, input.max) === null) {
            const shown = Array.isArray(raw) ? raw.join(',') : String(raw);
            throw new WebperfError('VALIDATION', `The ${WHERE[input.part]} ${input.name} must be an integer from ${input.min} to ${input.max} (digits only), got "${shown}"`);
          }
        }
      };
      const existing = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation];
      route.preValidation = [check, ...existing];
    });
  },
  { name: 'webperf-strict-integers' },
);
