export type BreakerState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. Default 5. */
  failureThreshold?: number;
  /** How long an open breaker rejects before it lets one probe through. Default 5000 ms. */
  cooldownMs?: number;
  onStateChange?: (state: BreakerState) => void;
}

export interface CircuitBreaker {
  readonly state: BreakerState;
  /** Whether a request could go through now (closed, or a probe is due). No side effect. */
  isAvailable(now: number): boolean;
  /** Open and in its cooldown: ms until it lets a probe through; 0 otherwise (closed, due, or probing now). */
  msUntilProbe(now: number): number;
  /** Admits a request: always when closed; one probe when the cooldown has passed. */
  tryAcquire(now: number): boolean;
  onSuccess(): void;
  onFailure(now: number): void;
  /** Gives back an admission that sent nothing (a probe slot is freed, nothing is counted). */
  release(): void;
  /** Opens at once: a health probe found the node not answering at all. */
  trip(now: number): void;
}

/**
 * Opens after `failureThreshold` consecutive failures, rejects while open, then half-opens after
 * `cooldownMs` and lets a single probe through: its success closes the breaker, its failure reopens it.
 */
export function createCircuitBreaker({
  failureThreshold = 5,
  cooldownMs = 5_000,
  onStateChange,
}: CircuitBreakerOptions = {}): CircuitBreaker {
  let state: BreakerState = 'closed';
  let failures = 0;
  let openedAt = 0;
  let probeInFlight = false;
  const moveTo = (next: BreakerState) => {
    if (state === next) return;
    state = next;
    onStateChange?.(next);
  };

  return {
    get state() {
      return state;
    },
    isAvailable(now) {
      if (state === 'closed') return true;
      if (state === 'open') return now - openedAt >= cooldownMs;
      return !probeInFlight;
    },
    msUntilProbe(now) {
      return state === 'open' ? Math.max(0, cooldownMs - (now - openedAt)) : 0;
    },
    tryAcquire(now) {
      if (state === 'closed') return true;
      if (state === 'open') {
        if (now - openedAt < cooldownMs) return false;
        moveTo('half_open');
      }
      if (probeInFlight) return false;
      probeInFlight = true;
      return true;
    },
    onSuccess() {
      failures = 0;
      probeInFlight = false;
      moveTo('closed');
    },
    onFailure(now) {
      probeInFlight = false;
      if (state === 'half_open' || ++failures >= failureThreshold) {
        openedAt = now;
        moveTo('open');
      }
    },
    release() {
      probeInFlight = false;
    },
    trip(now) {
      probeInFlight = false;
      failures = failureThreshold;
      openedAt = now;
      moveTo('open');
    },
  };
}
