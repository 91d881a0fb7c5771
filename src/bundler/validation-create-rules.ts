import type { RuleEntities } from './validation-rule-types.ts';

/**
 * Whether a CREATE (or a CREATE2 other than the one that deploys the sender) is allowed by ERC-7562:
 * OP-032, the sender contract itself may use CREATE when the op has a factory (in its constructor
 * or its validation); EREP-060, with a staked factory the factory itself or the sender may use CREATE
 * and CREATE2; EREP-061, a staked factory may also use a utility contract that calls CREATE.
 * `creator` is the contract running the opcode; `inFactoryPhase` whether it runs in the factory's call.
 * Pure.
 */
export function createAllowed(
  opcode: 'CREATE' | 'CREATE2',
  creator: string,
  inFactoryPhase: boolean,
  entities: Pick<RuleEntities, 'sender' | 'factory' | 'deploying' | 'staked'>,
): boolean {
  if (!entities.deploying) return false;
  const by = creator.toLowerCase();
  const sender = entities.sender.toLowerCase();
  const factory = entities.factory?.toLowerCase();
  if (opcode === 'CREATE' && by === sender) return true;
  if (!entities.staked.factory) return false;
  if (by === sender || by === factory) return true;
  return opcode === 'CREATE' && inFactoryPhase;
}
