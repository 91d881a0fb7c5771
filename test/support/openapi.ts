import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

interface Operation {
  requestBody?: { content: Record<string, { schema: object }> };
  parameters?: { in: string; name: string; schema: object }[];
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
}

/**
 * Checks real responses against the OpenAPI document the service publishes, so the document and the
 * behaviour cannot drift apart.
 */
export function createResponseChecker(doc: OpenApiDocument) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const compiled = new Map<string, ValidateFunction>();

  return function check(method: string, path: string, status: number, body: unknown): void {
    const operation = doc.paths[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`the OpenAPI document has no ${method} ${path}`);
    const response = operation.responses[String(status)];
    if (!response) throw new Error(`${method} ${path} answered ${status}, which its schema does not declare`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${method} ${path} ${status} has no JSON schema`);
    const key = `${method} ${path} ${status}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(schema);
      compiled.set(key, validate);
    }
    if (!validate(body)) {
      throw new Error(
        `${key}: the response does not match its schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
      );
    }
  };
}
