import type { EntryPointVersion } from './user-operation.ts';

/** The part of an op's validation a step ran in: the account's, the factory's or the paymaster's. */
export type ValidationEntity = 'account' | 'factory' | 'paymaster' | 'unknown';

/** A broken ERC-7562 rule: who broke it, with which opcode, and the rule's id. */
export interface RuleViolation {
  readonly entity: ValidationEntity;
  readonly opcode: string;
  /** The ERC-7562 rule id, e.g. OP-011 or STO-021. */
  readonly rule?: string;
  /** What the validation did, in words, when the opcode alone does not say it: a verb phrase that follows "the account's validation". */
  readonly detail?: string;
}

/** The op's entities and which of them are staked (ERC-7562 SREP-010: stake and unstake delay at the minimum). */
export interface RuleEntities {
  readonly entryPoint: string;
  readonly sender: string;
  readonly factory?: string;
  readonly paymaster?: string;
  /** The op deploys its sender (it has a factory). */
  readonly deploying: boolean;
  readonly staked: { readonly sender: boolean; readonly factory: boolean; readonly paymaster: boolean };
  /** The EntryPoint's version, where its ERC-7562 differs (STO-022's staked-factory exception: only the account's on v0.7). */
  readonly entryPointVersion?: EntryPointVersion;
  /** The paymaster's validation returned a context for its postOp, on an EntryPoint whose rules ask a stake for it (EREP-050: v0.6, v0.8). */
  readonly paymasterContext?: boolean;
}
