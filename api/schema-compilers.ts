/**
 * Fastify's own schema compilers (ajv for what comes in, fast-json-stringify for what goes out),
 * each route's schema compiled when the route first needs it rather than all at start, and once per
 * process: Fastify compiles every route's schemas as the app becomes ready, 0.26 s of CPU at each
 * start for about 250 route schemas (the premium routes are registered twice, at `/` and `/v1/`),
 * most of which a process never uses, and again for each app a process builds. Here a schema's
 * compiled function is kept under its text and the shared schemas it may refer to, so the same
 * schema at both prefixes, or in a second app of the same process, is compiled once.
 *
 * The compiled functions are the default compilers' own (Fastify's ajv options, ajv-formats, the
 * shared schemas of app.addSchema): only when they are made changes. A schema that does not
 * compile fails its route's first request with a 500 instead of the start; the suite sends a
 * request to every route (test/chaos/fuzz.test.ts) and compiles every schema (schema-compilers.test.ts).
 *
 * Fastify treats validators from a compilersFactory as custom ones: it then passes header schemas
 * as written instead of lower-casing their property names. Every header schema here is written in
 * lower case (checked by the test).
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Validate = ((this: unknown, data: unknown) => unknown) & { errors?: unknown };
type Serialize = (data: unknown) => string;
interface RouteSchema {
  schema: unknown;
  httpPart?: string;
  httpStatus?: string;
  method?: string;
  url?: string;
}

const validatorFactory = AjvCompiler();
const serializerFactory = SerializerSelector();
const validators = new Map<string, Validate>();
const serializers = new Map<string, Serialize>();

/** How many schemas this process compiled, each kind (for the tests). */
export const compiled = { validators: 0, serializers: 0 };

/**
 * A function that gives the compiled function: at its first call from the process's cache under
 * `key`, compiled (and kept there) when no route compiled the same schema before; then its own.
 */
function once<F>(cache: Map<string, F>, key: string, make: () => F, count: () => void): () => F {
  let fn: F | undefined;
  return () => {
    if (fn !== undefined) return fn;
    fn = cache.get(key);
    if (fn === undefined) {
      fn = make();
      count();
      cache.set(key, fn);
    }
    return fn;
  };
}

/** Fastify's buildValidator: the default one's compilers, each schema compiled at its first use. */
export function buildValidator(externalSchemas: unknown, options: unknown) {
  const compile = validatorFactory(externalSchemas as never, options as never) as unknown as (route: RouteSchema) => Validate;
  const scope = JSON.stringify(externalSchemas) + JSON.stringify((options as { customOptions?: unknown }).customOptions ?? null);
  return (route: RouteSchema): Validate => {
    const get = once(validators, `${scope}\0${JSON.stringify(route.schema)}`, () => compile(route), () => compiled.validators++);
    // Fastify reads a failed validation's errors from the function it was given.
    const validate: Validate = function (this: unknown, data: unknown) {
      const fn = get();
      const result = fn.call(this, data);
      validate.errors = fn.errors;
      return result;
    };
    validate.errors = null;
    return validate;
  };
}

/** Fastify's buildSerializer: fast-json-stringify's, each response schema compiled at its first use. */
export function buildSerializer(externalSchemas: unknown, options: unknown) {
  const compile = serializerFactory(externalSchemas as never, options as never) as unknown as (route: RouteSchema) => Serialize;
  const scope = JSON.stringify(externalSchemas) + JSON.stringify(options ?? null);
  return (route: RouteSchema): Serialize => {
    const get = once(serializers, `${scope}\0${JSON.stringify(route.schema)}`, () => compile(route), () => compiled.serializers++);
    return (data: unknown) => get()(data);
  };
}
