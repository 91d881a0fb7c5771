import { appendFileSync } from 'node:fs';

// Module hooks run on their own thread: a synchronous append is the simplest way out of it.
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (process.env.RECORD_IMPORTS_FILE) appendFileSync(process.env.RECORD_IMPORTS_FILE, `${result.url}\n`);
  return result;
}
