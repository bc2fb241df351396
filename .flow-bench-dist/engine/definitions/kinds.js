/** Every kind of definition file neo reads. */
export const DEFINITION_KINDS = ['persona', 'policy', 'backend', 'capability', 'routing', 'flow', 'config'];
/** Per kind: its schema file, its folder inside a layer's `definitions/`, its file format. */
export const KIND_INFO = {
    persona: { schema: 'persona.schema.json', folder: 'personas', format: 'markdown', plural: 'personas' },
    policy: { schema: 'policy.schema.json', folder: 'policies', format: 'yaml', plural: 'policies' },
    backend: { schema: 'backend.schema.json', folder: 'backends', format: 'yaml', plural: 'backends' },
    capability: { schema: 'capability.schema.json', folder: 'capabilities', format: 'yaml', plural: 'capabilities' },
    routing: { schema: 'routing.schema.json', folder: 'routing', format: 'yaml', plural: 'routing' },
    flow: { schema: 'flow.schema.json', folder: 'flows', format: 'yaml', plural: 'flows' },
    config: { schema: 'config.schema.json', folder: '', format: 'yaml', plural: 'config' },
};
export function isDefinitionKind(value) {
    return DEFINITION_KINDS.includes(value);
}
