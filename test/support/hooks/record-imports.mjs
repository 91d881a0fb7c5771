// `node --import ./record-imports.mjs …`: appends every module URL the program loads to the file named by
// RECORD_IMPORTS_FILE, so a test can see what a command loaded. Plain JavaScript: it runs beside the build.
import { register } from 'node:module';

register('./record-imports-hooks.mjs', import.meta.url);
