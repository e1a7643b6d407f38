export * from './client.js';
export { validate, schemaNames, type ValidationIssue, type ValidationResult } from '../../generated/schemas/chain-rpc/index.gen.js';
export type * from '../../generated/schemas/chain-rpc/index.gen.js';
