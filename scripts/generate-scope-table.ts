import { writeFileSync } from 'node:fs';
import { renderScopeTable, type ScopedDocument } from './scope-table.ts';
import { servedOpenApiDocument } from './served-openapi.ts';

/** `npm run generate:scopes`: writes docs/scopes.md from the routes' declared scopes and the JSON-RPC method policies. */
const doc = (await servedOpenApiDocument()) as ScopedDocument;
writeFileSync(new URL('../docs/scopes.md', import.meta.url), renderScopeTable(doc));
process.stdout.write('wrote docs/scopes.md\n');
