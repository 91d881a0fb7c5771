import { type Hex, keccak256 } from 'viem';
import { createAllowed } from './validation-create-rules.ts';
import { callOpcodeNames } from './validation-opcode-steps.ts';
import type { RuleEntities, RuleViolation, ValidationEntity } from './validation-rule-types.ts';

/**
 * What the step tracer reports about an op's validation, compactly: each step of interest with the
 * address of the entity whose validation ran it (the first contract the EntryPoint called into).
 */
export interface StepTrace {
  /** [entity address, opcode name, next opcode name (GAS) or the creating contract (CREATE)] of each banned or restricted opcode run. */
  readonly ops: readonly (readonly [string, string, string])[];
  /** [entity address, contract, slot (hex, no 0x), 1 if written, 1 if transient]: each storage access once. */
  readonly storage: readonly (readonly [string, string, string, number, number])[];
  /** KECCAK256 inputs whose first word is the sender's or an entity's address (association, ERC-7562). */
  readonly keccak: readonly string[];
  /** [entity address, opcode, target] of EXTCODE* on an address without code. */
  readonly noCode: readonly (readonly [string, string, string])[];
  /** [entity address, opcode] of EXTCODE* on the EntryPoint, but EXTCODESIZE followed by ISZERO (absent from older tracers' results). */
  readonly entryPointCode?: readonly (readonly [string, string])[];
}

const pad = (address: string) => `000000000000000000000000${address.toLowerCase().replace(/^0x/, '')}`;

/**
 * A debug_traceCall JavaScript tracer (geth's API, also in anvil and reth) that records only what the
 * rules need; far smaller than the struct logger's output. Steps in the EntryPoint's own code are
 * trusted and skipped.
 */
export function stepTracerSource(entities: Pick<RuleEntities, 'entryPoint' | 'sender' | 'factory' | 'paymaster'>): string {
  const watched = [entities.sender, entities.factory, entities.paymaster].filter(Boolean).map((a) => pad(a!));
  return `{
  ep: '${entities.entryPoint.toLowerCase()}',
  watched: ${JSON.stringify(watched)},
  names: {0x31:'BALANCE',0x32:'ORIGIN',0x3a:'GASPRICE',0x40:'BLOCKHASH',0x41:'COINBASE',0x42:'TIMESTAMP',0x43:'NUMBER',0x44:'PREVRANDAO',0x45:'GASLIMIT',0x47:'SELFBALANCE',0x48:'BASEFEE',0x49:'BLOBHASH',0x4a:'BLOBBASEFEE',0xf0:'CREATE',0xff:'SELFDESTRUCT',0x5a:'GAS'},
  addr: [], lastDepth: 0, gasAt: null, extAt: null, ops: [], storage: [], seen: {}, keccak: [], noCode: [], epCode: [],
  entity: function(depth) { for (var d = 2; d <= depth; d++) { if (this.addr[d] !== this.ep) return this.addr[d]; } return this.ep; },
  step: function(log, db) {
    var depth = log.getDepth();
    if (depth !== this.lastDepth) { if (depth > this.lastDepth) this.addr[depth] = toHex(log.contract.getAddress()); this.lastDepth = depth; }
    var code = log.op.toNumber();
    if (this.gasAt !== null) { this.ops.push([this.gasAt, 'GAS', log.op.toString()]); this.gasAt = null; }
    if (this.extAt !== null) { if (!(this.extAt[1] === 'EXTCODESIZE' && code === 0x15)) this.epCode.push(this.extAt); this.extAt = null; }
    if (depth < 2 || this.addr[depth] === this.ep) return;
    var name = this.names[code];
    if (name !== undefined) {
      if (code === 0x5a) { this.gasAt = this.entity(depth); return; }
      this.ops.push([this.entity(depth), name, code === 0xf0 ? toHex(log.contract.getAddress()) : '']);
      return;
    }
    if (code === 0x54 || code === 0x55 || code === 0x5c || code === 0x5d) {
      var contract = toHex(log.contract.getAddress());
      var slot = log.stack.peek(0).toString(16);
      var write = (code === 0x55 || code === 0x5d) ? 1 : 0;
      var transient = (code === 0x5c || code === 0x5d) ? 1 : 0;
      var who = this.entity(depth);
      var key = who + contract + slot + write + transient;
      if (!this.seen[key]) { this.seen[key] = 1; this.storage.push([who, contract, slot, write, transient]); }
      return;
    }
    if (code === 0x20) {
      var size = Number(log.stack.peek(1));
      if (size < 32 || size > 256) return;
      var offset = Number(log.stack.peek(0));
      var first = toHex(log.memory.slice(offset, offset + 32)).slice(2);
      for (var i = 0; i < this.watched.length; i++) {
        if (first === this.watched[i]) { this.keccak.push(toHex(log.memory.slice(offset, offset + size))); return; }
      }
      return;
    }
    if (code === 0x3b || code === 0x3c || code === 0x3f) {
      var target = toAddress(log.stack.peek(0).toString(16));
      var ext = code === 0x3b ? 'EXTCODESIZE' : code === 0x3c ? 'EXTCODECOPY' : 'EXTCODEHASH';
      if (toHex(target) === this.ep) this.extAt = [this.entity(depth), ext];
      else if (db.getCode(target).length === 0) this.noCode.push([this.entity(depth), ext, toHex(target)]);
    }
  },
  fault: function() {},
  result: function() { return { ops: this.ops, storage: this.storage, keccak: this.keccak, noCode: this.noCode, entryPointCode: this.epCode }; }
}`;
}

/** How far past a mapping's base slot a struct's fields reach and still count as associated (ERC-7562). */
const associatedSpan = 128n;

/**
 * ERC-7562's opcode and storage rules from a step trace. Pure: the trace and the op's entities in,
 * the first broken rule out.
 */
export function checkStepTrace(trace: StepTrace, entities: RuleEntities): RuleViolation | undefined {
  const sender = entities.sender.toLowerCase();
  const factory = entities.factory?.toLowerCase();
  const paymaster = entities.paymaster?.toLowerCase();
  const entityOf = (address: string): ValidationEntity =>
    address === sender ? 'account' : address === paymaster ? 'paymaster' : 'factory';
  const staked = (entity: ValidationEntity) =>
    entity === 'account'
      ? entities.staked.sender
      : entity === 'factory'
        ? entities.staked.factory
        : entity === 'paymaster' && entities.staked.paymaster;

  for (const [address, opcode, next] of trace.ops) {
    const entity = entityOf(address.toLowerCase());
    if (opcode === 'GAS') {
      if (!callOpcodeNames.has(next))
        return { entity, opcode, rule: 'OP-012', detail: `uses GAS followed by ${next}, not by a call` };
      continue;
    }
    if ((opcode === 'BALANCE' || opcode === 'SELFBALANCE') && staked(entity)) continue;
    if (opcode === 'CREATE' && createAllowed('CREATE', next, entity === 'factory', entities)) continue;
    return { entity, opcode, rule: opcode === 'BALANCE' || opcode === 'SELFBALANCE' ? 'OP-080' : 'OP-011' };
  }

  for (const [address, opcode, target] of trace.noCode) {
    const entity = entityOf(address.toLowerCase());
    if (target.toLowerCase() === sender && entity === 'factory') continue; // OP-042
    return { entity, opcode, rule: 'OP-041', detail: `reads the code of ${target}, which has none` };
  }
  for (const [address, opcode] of trace.entryPointCode ?? []) {
    const entity = entityOf(address.toLowerCase());
    return { entity, opcode, rule: 'OP-054', detail: `reads the code of the EntryPoint ${entities.entryPoint}` };
  }

  // Associated slots: keccak(A || x) + n for n < 128, and A itself, for A the sender or an entity.
  const bases: { owner: string; base: bigint }[] = [];
  for (const input of trace.keccak) {
    const owner = `0x${input.slice(26, 66)}`.toLowerCase();
    bases.push({ owner, base: BigInt(keccak256(input as Hex)) });
  }
  const associatedWith = (owner: string, slot: bigint) =>
    slot === BigInt(owner) ||
    bases.some((entry) => entry.owner === owner && slot >= entry.base && slot - entry.base < associatedSpan);

  for (const [address, contractRaw, slotHex, write, transient] of trace.storage) {
    const entity = entityOf(address.toLowerCase());
    const contract = contractRaw.toLowerCase();
    const slot = BigInt(`0x${slotHex || '0'}`);
    const opcode = transient ? (write ? 'TSTORE' : 'TLOAD') : write ? 'SSTORE' : 'SLOAD';
    if (contract === sender) continue; // STO-010
    if (associatedWith(sender, slot)) {
      // STO-021, STO-022; while the sender is deployed, a staked entity may too (its storage rules, STO-031/032),
      // and any entity when the factory is staked (only the account on EntryPoint v0.7, whose rules said so).
      const factoryCovers = entities.staked.factory && (entities.entryPointVersion !== '0.7' || entity === 'account');
      if (!entities.deploying || factoryCovers || staked(entity)) continue;
      return {
        entity,
        opcode,
        rule: 'STO-022',
        detail: `accesses the sender's slot ${hexSlot(slot)} of ${contract} while deploying it, with neither the factory nor the ${entity} staked`,
      };
    }
    const own = contract === factory ? 'factory' : contract === paymaster ? 'paymaster' : undefined;
    if (own && own === entity) {
      if (staked(entity)) continue; // STO-031
      return {
        entity,
        opcode,
        rule: 'STO-031',
        detail: `accesses its own storage (slot ${hexSlot(slot)}), which an unstaked ${entity} may not`,
      };
    }
    if (staked(entity)) {
      const entityAddress = entity === 'factory' ? factory : entity === 'paymaster' ? paymaster : sender;
      if (entityAddress && associatedWith(entityAddress, slot)) continue; // STO-032
      if (!write && !own) continue; // STO-033
    }
    return {
      entity,
      opcode,
      rule: 'STO-021',
      detail: `${write ? 'writes' : 'reads'} slot ${hexSlot(slot)} of ${contract}, which is not associated with the sender${staked(entity) ? '' : ` (an unstaked ${entity} may not)`}`,
    };
  }
  return undefined;
}

const hexSlot = (slot: bigint) => `0x${slot.toString(16)}`;
