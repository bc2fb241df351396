/** Every kind of definition file neo reads. */
export const DEFINITION_KINDS = ['persona', 'policy', 'backend', 'capability', 'routing', 'flow', 'config'] as const;
export type DefinitionKind = (typeof DEFINITION_KINDS)[number];

/** Per kind: its schema file, its folder inside a layer's `definitions/`, its file format. */
export const KIND_INFO: Record<
  DefinitionKind,
  { schema: string; folder: string; format: 'yaml' | 'markdown'; plural: string }
> = {
  persona: { schema: 'persona.schema.json', folder: 'personas', format: 'markdown', plural: 'personas' },
  policy: { schema: 'policy.schema.json', folder: 'policies', format: 'yaml', plural: 'policies' },
  backend: { schema: 'backend.schema.json', folder: 'backends', format: 'yaml', plural: 'backends' },
  capability: { schema: 'capability.schema.json', folder: 'capabilities', format: 'yaml', plural: 'capabilities' },
  routing: { schema: 'routing.schema.json', folder: 'routing', format: 'yaml', plural: 'routing' },
  flow: { schema: 'flow.schema.json', folder: 'flows', format: 'yaml', plural: 'flows' },
  config: { schema: 'config.schema.json', folder: '', format: 'yaml', plural: 'config' },
};

export function isDefinitionKind(value: string): value is DefinitionKind {
  return (DEFINITION_KINDS as readonly string[]).includes(value);
}
