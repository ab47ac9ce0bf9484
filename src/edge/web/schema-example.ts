/**
 * An example value for a JSON Schema of /openapi.json, for the discovery catalogue: the schema's
 * own example, default or first enum value where it has one, else a plausible value of its type.
 * Only required object fields are filled, so an example request is the smallest valid one.
 */
type Schema = Record<string, any>;

const MAX_DEPTH = 6;

const STRING_FORMATS: Record<string, string> = {
  'date-time': '2026-01-05T12:00:00.000Z',
  date: '2026-01-05',
  uri: 'https://example.com/hook',
  email: 'you@example.com',
};

export function exampleOf(schema: Schema | undefined, components: Record<string, Schema>, depth = 0): unknown {
  if (!schema || depth > MAX_DEPTH) return null;
  if (typeof schema.$ref === 'string')
    return exampleOf(components[schema.$ref.replace('#/components/schemas/', '')], components, depth + 1);
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants)) {
    const concrete = variants.find((v: Schema) => v.type !== 'null') ?? variants[0];
    return exampleOf(concrete, components, depth + 1);
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s: Schema) => exampleOf(s, components, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required: string[] = schema.required ?? [];
      for (const [name, prop] of Object.entries<Schema>(schema.properties ?? {})) {
        if (required.includes(name)) out[name] = exampleOf(prop, components, depth + 1);
      }
      return out;
    }
    case 'array':
      return schema.items ? [exampleOf(schema.items, components, depth + 1)] : [];
    case 'integer':
      return Math.max(1, Math.ceil(schema.minimum ?? 1));
    case 'number':
      return schema.minimum ?? 1.5;
    case 'boolean':
      return true;
    case 'string':
      return STRING_FORMATS[schema.format] ?? 'string';
    default:
      return null;
  }
}
