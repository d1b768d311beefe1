import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Every answer of the e2e suites checked against the OpenAPI document the service serves: its
 * route and method are described, its status is declared for them, its media type too, and a JSON
 * body is valid against the schema declared for that status (objects are closed: an undeclared
 * field fails). Routes outside `/v1` and `/admin/v1` (hosted pages, health, metrics) are not
 * described, and not checked; a path under them that no route matches must be a 404 error.
 */

export interface Answer {
  method: string;
  /** Path and query, as requested. */
  path: string;
  status: number;
  contentType: string | null;
  headers: Headers;
  body: unknown;
}

interface Operation {
  template: string;
  pattern: RegExp;
  /** Literal segments first: `/v1/test_helpers/clock` before `/v1/test_helpers/{x}`. */
  params: number;
  methods: Record<string, { responses: Record<string, { content?: Record<string, { schema?: object }>; headers?: Record<string, unknown> } | { $ref: string }> }>;
}

type Document = { paths: Record<string, Operation['methods']>; components: Record<string, Record<string, unknown>> };

const DESCRIBED = /^\/(v1|admin\/v1)\//;

export class DocumentConformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly operations: Operation[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Document) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: relative(document.components) });
    this.operations = Object.entries(document.paths)
      .map(([template, methods]) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        params: (template.match(/\{/g) ?? []).length,
        methods,
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** The faults of an answer, empty when it conforms (or is outside the described routes). */
  check(answer: Answer): string[] {
    const path = answer.path.split('?')[0]!;
    if (!DESCRIBED.test(path)) return [];
    const method = answer.method.toLowerCase();
    const operation = this.operations.find((o) => o.pattern.test(path) && o.methods[method]) ?? undefined;
    if (!operation) {
      // An unknown route, or a method the route does not take: the service's 404 error.
      return answer.status === 404 ? this.validate('#/components/schemas/Error', answer.body, 'an unknown route’s 404') : [`${answer.method} ${path} is not described, and answered ${answer.status} (not 404)`];
    }
    const where = `${answer.method} ${operation.template} ${answer.status}`;
    const declared = this.resolve(operation.methods[method]!.responses[String(answer.status)]);
    if (!declared) return [`${where}: status ${answer.status} is not declared for this operation`];
    const faults: string[] = [];
    if (answer.headers.get('request-id') === null) faults.push(`${where}: no Request-Id header`);
    for (const [name, header] of Object.entries(declared.headers ?? {})) {
      if ((this.resolve(header as object) as { required?: boolean } | undefined)?.required && answer.headers.get(name) === null) faults.push(`${where}: no ${name} header`);
    }
    const mediaType = (answer.contentType ?? '').split(';')[0]!.trim();
    const content = declared.content ?? {};
    if (mediaType === '' && Object.keys(content).length === 0) return faults;
    const described = content[mediaType];
    if (!described) return [...faults, `${where}: media type '${mediaType}' is not declared (${Object.keys(content).join(', ') || 'no content'})`];
    if (mediaType !== 'application/json' || !described.schema) return faults;
    return [...faults, ...this.validate(JSON.stringify(described.schema), answer.body, where)];
  }

  private resolve<T extends object>(value: T | { $ref: string } | undefined): Exclude<T, { $ref: string }> | undefined {
    if (value && '$ref' in value && typeof value.$ref === 'string') {
      const [, group, name] = value.$ref.match(/^#\/components\/([^/]+)\/(.+)$/) ?? [];
      return this.document.components[group!]?.[name!] as Exclude<T, { $ref: string }> | undefined;
    }
    return value as Exclude<T, { $ref: string }> | undefined;
  }

  /** `schema` is a `$ref` into the components or a schema as JSON. */
  private validate(schema: string, body: unknown, where: string): string[] {
    let validate = this.validators.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema.startsWith('#') ? { $ref: `openapi${schema}` } : relative(JSON.parse(schema) as object));
      this.validators.set(schema, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => `${where}: ${e.instancePath || '(body)'} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` '${String(e.params['additionalProperty'])}'` : ''}`);
  }
}

/** The document's `#/components/…` references, pointed at the schema Ajv holds the components under. */
const relative = <T extends object>(value: T): T => JSON.parse(JSON.stringify(value).replace(/"#\/components\//g, '"openapi#/components/')) as T;

/** Throws when an answer does not conform, naming the request and every fault: the test that made it fails. */
export function assertConforms(conformance: DocumentConformance, answer: Answer): void {
  const faults = conformance.check(answer);
  if (faults.length > 0) {
    throw new Error(`the answer to ${answer.method} ${answer.path} breaks the OpenAPI document:\n  ${faults.join('\n  ')}\nbody: ${JSON.stringify(answer.body).slice(0, 1000)}`);
  }
}
