// What a FakeOpenStack is built from and what it reports: its options, its request log, the
// faults it can inject, and the default identity its clouds.yaml uses.
import type { FakeApplicationCredential, FakeProject, FakeUser } from './fake-identity.js';

/** The catalog interfaces the fake offers; each has its own compute URL. */
export type FakeInterface = 'public' | 'internal' | 'admin';
/** The services the fake serves: Keystone (`identity`) and Nova (`compute`). */
export type FakeService = 'identity' | 'compute';

/**
 * How to build a FakeOpenStack; every field has a default (one region, the FAKE_DEFAULTS user,
 * project and application credential).
 */
export interface FakeOpenStackOptions {
  /** Regions with a compute endpoint (each interface gets its own URL). Default ['RegionOne']. */
  readonly regions?: readonly string[];
  /** Users Keystone knows; default the FAKE_DEFAULTS user with a role on its project. */
  readonly users?: readonly FakeUser[];
  /**
   * Projects; default the FAKE_DEFAULTS project. The first one owns servers added without a
   * projectId.
   */
  readonly projects?: readonly FakeProject[];
  /** Application credentials; default the FAKE_DEFAULTS one. */
  readonly applicationCredentials?: readonly FakeApplicationCredential[];
  /** Lifetime of issued tokens in seconds, on the `now` clock; default 3600. */
  readonly tokenTtlSeconds?: number;
  /** Time for a reboot/start/stop/rebuild to complete. Default 2000 ms. */
  readonly transitionDelayMs?: number;
  /**
   * Time between an action's 202 and nova-compute picking it up: until then the server shows
   * the API's task state (rebooting, rebooting_hard, powering-off), as real Nova's did right
   * after the 202 on the testbed. Default 0 (picked up at once, the compute task state shows
   * right away).
   */
  readonly computePickupDelayMs?: number;
  /** Highest compute microversion; default 2.96. The lowest is 2.1. */
  readonly maxMicroversion?: string;
  /** When set, rebuild accepts only these image ids (else 400). */
  readonly images?: readonly string[];
  /** The clock for token expiry and server transitions. */
  readonly now?: () => number;
  /**
   * Like Nova's keystonemiddleware (token_cache_time, 300 s by default): a token compute has
   * validated stays accepted this long even after it is revoked (never past its expiry).
   * Default 0: every request is checked against the fake Keystone, so revokeTokens() bites
   * at once.
   */
  readonly serviceTokenCacheSeconds?: number;
}

/** One request the fake answered, for tests to assert on what the client sent. */
export interface FakeRequestLogEntry {
  /** When it arrived, in epoch milliseconds on the fake's clock. */
  readonly at: number;
  /** HTTP method. */
  readonly method: string;
  /** URL path without a trailing slash. */
  readonly path: string;
  /** Which fake service it was for; `unknown` for paths outside both. */
  readonly service: FakeService | 'unknown';
  /** Region of the compute endpoint called. */
  readonly region?: string | undefined;
  /** Interface of the compute endpoint called. */
  readonly interface?: FakeInterface | undefined;
  /** The server the path names, if any. */
  readonly serverId?: string | undefined;
  /** reboot, os-start, os-stop, rebuild */
  readonly action?: string | undefined;
  /** SOFT or HARD for a reboot action. */
  readonly rebootType?: string | undefined;
  /** The compute microversion the request asked for, if it sent one. */
  readonly microversion?: string | undefined;
  /** The status the fake answered (an injected fault's status included). */
  readonly status: number;
  /** True when the status came from fault injection. */
  readonly injected: boolean;
}

/** A fault to inject with failNext or setOutage. */
export interface FaultSpec {
  /** 5xx as during outages, or 401 to make a service reject even fresh tokens. */
  readonly status: 401 | 500 | 502 | 503 | 504;
  /** When set, the faulted reply carries this Retry-After header. */
  readonly retryAfterSeconds?: number | undefined;
  /** Only requests to this service are affected (default: any). */
  readonly service?: FakeService | undefined;
  /**
   * The request reaches the service and takes effect, then the reply is replaced by this
   * status, as a proxy in front of nova-api does when the upstream reply is lost (502/504).
   */
  readonly afterForward?: boolean | undefined;
}

/** The fake's default identity, usable in clouds.yaml produced by cloudsYaml(). */
export const FAKE_DEFAULTS = {
  domain: 'Default',
  project: { id: 'f0000000000000000000000000000001', name: 'capi', domain: 'Default' },
  user: {
    id: 'u0000000000000000000000000000001',
    name: 'capo',
    domain: 'Default',
    password: 'fake-password-7hQx2Lm9',
  },
  applicationCredential: {
    id: 'ac000000000000000000000000000001',
    name: 'capo-remediation',
    secret: 'fake-app-secret-Zp4Kw8Rt',
  },
} as const;
