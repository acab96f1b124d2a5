// Superseded by NovaMachineProvider (machine-provider.ts), which capo-remediation uses: kept
// for `noderepair run`'s RebootProvider users (demo, pack-test).
// @noderepair/core's RebootProvider port on Nova: SoftReboot and HardReboot are Nova reboots
// (SOFT, HARD), Rebuild a Nova rebuild from the request's image. The port's promise: an
// actionId already executed is never executed again, even across controller restarts. Memory
// cannot keep that promise, so the id is written to the server's own metadata BEFORE the
// action (a rebuild keeps server metadata):
//   metadata[key] == actionId -> already done (or at least attempted): do not act again;
//   otherwise: record the id, then act.
// A crash between recording and acting loses that one action (at most once); the attempt
// then times out and the ladder escalates, which is safe. A double reboot is not.
import type { RebootProvider, RebootRequest, RebootResult } from '@noderepair/core/health';
import * as E from 'fp-ts/lib/Either.js';
import { ActionMaybeSent, OpenStackError } from './errors.js';
import type { CallOptions, NovaClient } from './nova.js';
import { parseProviderID } from './provider-id.js';

/** Nova metadata key holding the last executed action id. */
export const ACTION_ID_METADATA_KEY = 'noderepair_action_id';

/**
 * core's RebootProvider on Nova (SoftReboot, HardReboot, Rebuild), at most once per actionId: the
 * id is recorded in the server's metadata before acting. Superseded by NovaMachineProvider; kept
 * for `noderepair run`.
 */
export class NovaRebootProvider implements RebootProvider {
  /** The provider's name as it appears in results and logs. */
  readonly name = 'openstack-nova';
  readonly #nova: NovaClient;
  readonly #key: string;

  /**
   * `opts.metadataKey` is the server metadata key recording the last action id (default
   * ACTION_ID_METADATA_KEY).
   */
  constructor(nova: NovaClient, opts: { metadataKey?: string } = {}) {
    this.#nova = nova;
    this.#key = opts.metadataKey ?? ACTION_ID_METADATA_KEY;
  }

  /**
   * Runs the request on the Node's server. Client errors become `Failed` results and an unanswered
   * action counts as accepted; rejects only when `signal` aborts (OpenStackError `Aborted`) or on
   * an unexpected error.
   */
  async execute(req: RebootRequest, signal?: AbortSignal): Promise<RebootResult> {
    const call = { signal };
    if (req.action === 'Replace') {
      return {
        result: 'Failed',
        message: 'Replace is not a Nova action: Cluster API replaces the Machine',
      };
    }
    if (req.action === 'Rebuild' && !req.image)
      return { result: 'Failed', message: 'Rebuild needs an image (the ladder step has none)' };
    if (!req.providerID) return { result: 'Failed', message: `node ${req.node} has no providerID` };
    const id = parseProviderID(req.providerID);
    if (E.isLeft(id)) return { result: 'Failed', message: id.left };
    const serverId = id.right.serverId;
    const rebuildImage = req.action === 'Rebuild' ? req.image : undefined;
    const type = req.action === 'SoftReboot' ? 'SOFT' : 'HARD';
    try {
      const meta = await this.#nova.getMetadata(serverId, call);
      if (meta[this.#key] === req.actionId) {
        return {
          result: 'Succeeded',
          message: `${req.actionId} was already executed on server ${serverId}; not ${rebuildImage ? 'rebuilding' : 'rebooting'} again`,
        };
      }
      const recorded = await this.#record(serverId, req, call);
      if (recorded !== true) return recorded;
      if (rebuildImage) {
        await this.#nova.rebuild(serverId, rebuildImage, call);
        return {
          result: 'Succeeded',
          message: `Nova accepted rebuild of server ${serverId} from image ${rebuildImage}`,
        };
      }
      await this.#nova.reboot(serverId, type, call);
      return { result: 'Succeeded', message: `Nova accepted reboot ${type} of server ${serverId}` };
    } catch (e) {
      // Sent without an answer: at most once, as before NovaMachineProvider (which asks Nova).
      if (e instanceof ActionMaybeSent)
        return { result: 'Succeeded', message: `${e.message}; counted as accepted` };
      // Typed client errors are results (the decision escalates); anything else is a bug.
      // Aborted is neither: the caller's term ended mid-call, nothing is concluded.
      if (e instanceof OpenStackError && e.code !== 'Aborted')
        return { result: 'Failed', message: `${e.code}: ${e.message}` };
      throw e;
    }
  }

  /**
   * Records the action id before acting. Nova refuses metadata writes to a server in ERROR
   * (409, vm_state error) yet accepts a HARD reboot or a rebuild of it, and ERROR is exactly
   * the state such a step exists for. Without the record a replay cannot tell whether the
   * first call acted, so: a first execution acts unrecorded; a replay (intent persisted, its
   * completion not) does not act again and fails, which escalates the ladder. At most once.
   */
  async #record(
    serverId: string,
    req: RebootRequest,
    call: CallOptions,
  ): Promise<true | RebootResult> {
    try {
      await this.#nova.setMetadataItem(serverId, this.#key, req.actionId, call);
      return true;
    } catch (e) {
      if (!(e instanceof OpenStackError) || e.code !== 'Conflict' || req.action === 'SoftReboot')
        throw e;
      const server = await this.#nova.getServer(serverId, call);
      if (server.status !== 'ERROR') throw e;
      if (!req.replay) return true;
      return {
        result: 'Failed',
        message: `server ${serverId} is in ERROR, where Nova refuses the action-id record; ${req.actionId} may already have run, so it is not sent again`,
      };
    }
  }
}
