// The validator in settings-validator.generated.js (Ajv's standalone code for src/config/schema.ts).
declare const validate: ((data: unknown) => boolean) & { errors?: unknown[] | null };
export default validate;
